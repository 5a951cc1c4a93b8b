//go:build cgo

package schedulers

/*
#cgo LDFLAGS: -lmetis
#include <metis.h>
#include <stdlib.h>

#if IDXTYPEWIDTH != 32
#error "stormlab expects METIS built with 32-bit idx_t (Debian's libmetis-dev)"
#endif
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// metisPartKway calls METIS_PartGraphKway. The graph arrays are Go memory
// without Go pointers, which cgo allows to pass for the call's duration.
func metisPartKway(m *metisGraph, k int, seed int32) ([]int, error) {
	n := len(m.xadj) - 1
	nvtxs, ncon, nparts := C.idx_t(n), C.idx_t(1), C.idx_t(k)
	var opts [C.METIS_NOPTIONS]C.idx_t
	if rc := C.METIS_SetDefaultOptions(&opts[0]); rc != C.METIS_OK {
		return nil, metisError("METIS_SetDefaultOptions", int(rc))
	}
	opts[C.METIS_OPTION_SEED] = C.idx_t(seed)
	opts[C.METIS_OPTION_NUMBERING] = 0
	// A graph without edges has empty adjncy; METIS never reads it then,
	// but cgo needs a valid address.
	adjncy, adjwgt := m.adjncy, m.adjwgt
	if len(adjncy) == 0 {
		adjncy, adjwgt = []int32{0}, []int32{0}
	}
	var vwgt *C.idx_t
	if m.vwgt != nil {
		vwgt = (*C.idx_t)(unsafe.Pointer(&m.vwgt[0]))
	}
	part := make([]int32, n)
	var objval C.idx_t
	rc := C.METIS_PartGraphKway(&nvtxs, &ncon,
		(*C.idx_t)(unsafe.Pointer(&m.xadj[0])),
		(*C.idx_t)(unsafe.Pointer(&adjncy[0])),
		vwgt, nil,
		(*C.idx_t)(unsafe.Pointer(&adjwgt[0])),
		&nparts, nil, nil, &opts[0], &objval,
		(*C.idx_t)(unsafe.Pointer(&part[0])))
	if rc != C.METIS_OK {
		return nil, metisError("METIS_PartGraphKway", int(rc))
	}
	out := make([]int, n)
	for i, p := range part {
		out[i] = int(p)
	}
	return out, nil
}

func metisError(call string, rc int) error {
	switch rc {
	case C.METIS_ERROR_INPUT:
		return fmt.Errorf("%s: METIS_ERROR_INPUT (erroneous input or options)", call)
	case C.METIS_ERROR_MEMORY:
		return fmt.Errorf("%s: METIS_ERROR_MEMORY (out of memory)", call)
	default:
		return fmt.Errorf("%s: METIS error code %d", call, rc)
	}
}
