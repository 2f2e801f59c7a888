package fakediscord

import "testing"

// TestHoldAfterClose: a hold made once the server is closed is released
// at once (nothing would ever release it).
func TestHoldAfterClose(t *testing.T) {
	t.Parallel()
	srv, err := Listen("127.0.0.1:0", Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv.Close()
	h := srv.HoldNext("GET", "/gateway")
	if h == nil {
		t.Fatal("HoldNext after Close returned nil")
	}
	select {
	case <-h.release:
	default:
		t.Error("a hold made after Close is not released")
	}
}
