package tail

import (
	"context"
	"errors"
	"testing"
)

func TestLines(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"a\nb\nc\n", 2, "b\nc"},
		{"a\nb\n", 5, "a\nb"},
		{"", 3, ""},
		{"a\n\n\n", 1, "a"},
	} {
		if got := Lines(c.in, c.n); got != c.want {
			t.Errorf("Lines(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}

type logs map[string]string

func (l logs) LogNames() []string { return []string{"nimbus", "sup1"} }
func (l logs) Log(_ context.Context, name string) (string, error) {
	if s, ok := l[name]; ok {
		return s, nil
	}
	return "", errors.New("no such container")
}

func TestOfAndFormat(t *testing.T) {
	got := Format(Of(context.Background(), logs{"nimbus": "1\n2\n3\n"}, 2))
	want := "--- nimbus ---\n2\n3\n--- sup1 ---\n(log unavailable: no such container)\n"
	if got != want {
		t.Errorf("Format = %q, want %q", got, want)
	}
}
