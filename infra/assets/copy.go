package assets

import (
	"io"
	"os"
	"path/filepath"
)

// CopyFile copies src to dst, creating dst's folder and keeping src's permissions (executables stay
// executable); an existing dst is replaced. The image builder and `stormlab setup` both copy built
// parts this way; the standard library has no single-file copy.
func CopyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	info, err := in.Stat()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, info.Mode().Perm())
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
