//go:build !cgo

package schedulers

import "errors"

func metisPartKway(*metisGraph, int, int32) ([]int, error) {
	return nil, errors.New("METIS is not available: this binary was built without cgo; build with CGO_ENABLED=1 and Debian's libmetis-dev installed")
}
