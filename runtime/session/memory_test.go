package session_test

import (
	"testing"

	"github.com/acpgen/acpgen/runtime/session"
	"github.com/acpgen/acpgen/runtime/session/sessiontest"
)

func TestMemory(t *testing.T) {
	sessiontest.Run(t, func(t *testing.T) session.Store { return session.NewMemory() })
}
