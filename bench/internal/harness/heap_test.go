package harness

import (
	"reflect"
	"testing"
)

func TestGCs(t *testing.T) {
	log := []byte("time=… level=INFO msg=connected\n" +
		"gc 1 @0.012s 2%: 0.013+0.55+0.021 ms clock, 0.026+0.12/0.40/0.12+0.042 ms cpu, 4->4->0 MB, 4 MB goal, 0 MB stacks, 0 MB globals, 2 P\n" +
		"gc 2 @3.1s 5%: 1.1+74+0.056 ms clock, 2.3+0/41/15+0.11 ms cpu, 76->93->71 MB, 86 MB goal, 0 MB stacks, 0 MB globals, 2 P\n" +
		"gc 3 @3.2s 5%: 0.1+1+0.1 ms clock, 0.1+0/1/1+0.1 ms cpu, 10->11->9 MB, 12 MB goal, 0 MB stacks, 0 MB globals, 2 P (forced)\n")
	want := []GC{{4, 4, 0}, {76, 93, 71}, {10, 11, 9}}
	if got := GCs(log); !reflect.DeepEqual(got, want) {
		t.Errorf("GCs = %v, want %v", got, want)
	}
	if got := want[1].Room(); got != 142 {
		t.Errorf("Room = %d, want 142", got)
	}
}
