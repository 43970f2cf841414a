package acphttp

import "net/http"

// HostOriginAllowed reports whether r passes the Host and Origin checks a
// Server with these Options.AllowedHosts and Options.OriginPatterns makes
// (empty allowedHosts: loopback names only). Other loopback endpoints (the
// mcp module's HTTP bridge) use it to refuse DNS-rebinding and cross-origin
// requests the same way.
func HostOriginAllowed(r *http.Request, allowedHosts, originPatterns []string) bool {
	s := &Server{o: Options{AllowedHosts: allowedHosts, OriginPatterns: originPatterns}}
	return s.hostAllowed(r.Host) && s.originAllowed(r)
}
