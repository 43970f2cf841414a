package main

import (
	"bufio"
	"context"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxMatches bounds one search's answer.
const maxMatches = 50

type searchIn struct {
	Query string `json:"query" jsonschema:"the text to look for"`
}

// newSearchServer returns an MCP server with one tool, search, that lists
// the lines of the files under root containing a text. It reads through an
// os.Root, so no path leaves root.
func newSearchServer(root string) (*mcp.Server, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, err
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "project-search", Version: "1.0.0"}, nil)
	tool := &mcp.Tool{Name: "search", Description: "Lists the lines of the project's files that contain a text.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}
	mcp.AddTool(s, tool, func(ctx context.Context, _ *mcp.CallToolRequest, in searchIn) (*mcp.CallToolResult, any, error) {
		matches, err := search(ctx, r.FS(), in.Query)
		if err != nil {
			return nil, nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Join(matches, "\n")}}}, nil, nil
	})
	return s, nil
}

// search returns "path:line: text" for each line of the files of fsys that
// contains query, in walk order, at most maxMatches.
func search(ctx context.Context, fsys fs.FS, query string) ([]string, error) {
	if query == "" {
		return nil, fmt.Errorf("query is empty")
	}
	var out []string
	err := fs.WalkDir(fsys, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || len(out) >= maxMatches {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		f, err := fsys.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for n := 1; sc.Scan() && len(out) < maxMatches; n++ {
			if strings.Contains(sc.Text(), query) {
				out = append(out, fmt.Sprintf("%s:%d: %s", path, n, strings.TrimSpace(sc.Text())))
			}
		}
		return nil // a file that is not text ends its scan: skipped
	})
	return out, err
}
