package schedulers

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/stormlab/stormlab/topologies"
)

// Exact is the reference "optimum": the proven minimum cut of a k-way
// partition whose max deviation rate (eq. 8 of Jian, Lu and Zhang, "Storm
// heuristic balanced graph-partition scheduling optimization method", 2018) is at
// most Epsilon, i.e. every part weight lies in [(1-ε)·w_e, (1+ε)·w_e] with
// w_e = w(V)/k. Two exact methods prove it: an own branch and bound
// (exactBB, tried first for up to 10 s: on the K-PART paper's G(24,36)
// graphs it proves k = 3 in milliseconds) and, when that runs out of time,
// the mixed-integer program below in CPLEX LP format solved by the COIN-OR
// CBC solver (Debian package coinor-cbc, binary `cbc`) with the time left.
// Tests check that both find the same optimum.
//
// Model (variables by vertex index, edges of the merged undirected graph):
//
//	min  Σ_{uv} ω(u,v)·z_uv
//	     Σ_p x_vp = 1                                 every vertex in one part
//	     z_uv >= x_up − x_vp,  z_uv >= x_vp − x_up     for every part p
//	     (1−ε)·w_e <= Σ_v w(v)·x_vp <= (1+ε)·w_e        for every part p
//	     x binary, 0 <= z <= 1
//
// Part labels are interchangeable, so x_vp exists only for p <= v (vertex
// v sits in one of the first v+1 parts): every partition has exactly one
// relabelling of that form (number parts by their smallest vertex), so the
// optimum is unchanged while CBC explores k! times fewer symmetric copies.
//
// Choices:
//   - Epsilon 0 means DefaultEpsilon (0.03, METIS's default imbalance).
//   - Vertex weights that sum to 0 count as 1 each (as in K-PART).
//   - Sizes are capped (MaxExactVertices, MaxExactK): beyond them CBC rarely
//     proves optimality in minutes, so they are bad input, not a long wait.
//   - TimeLimit (default 60 s, shortened by the context's deadline) bounds
//     both methods together. When it is hit, Partition returns the best partition
//     found together with a *NotProvenError, so a caller can still use it
//     but cannot mistake it for the optimum.
//   - The returned partition is checked against the balance bound (with a
//     relative tolerance of 1e-9 for the solver's feasibility tolerance).
type Exact struct {
	Epsilon   float64
	TimeLimit time.Duration
	// Solver is the CBC binary; "" means `cbc` on PATH.
	Solver string
	// Method: "" tries the branch and bound first (up to exactBBBudget),
	// then CBC with the time left; "bb" and "cbc" use one of them only.
	Method string
}

// exactBBBudget is the share of the time limit the branch and bound gets
// before Exact hands the problem to CBC.
const exactBBBudget = 10 * time.Second

// DefaultEpsilon is the balance bound (max deviation rate) used when
// Options.Epsilon is 0: 3%, METIS's default k-way imbalance tolerance.
const DefaultEpsilon = 0.03

// Size limits of Exact.
const (
	MaxExactVertices = 48
	MaxExactK        = 4
)

// NewExact builds Exact from Options.Epsilon.
func NewExact(o Options) (Scheduler, error) {
	eps, err := epsilonOrDefault("exact", o.Epsilon)
	if err != nil {
		return nil, err
	}
	return &Exact{Epsilon: eps, TimeLimit: 60 * time.Second}, nil
}

var exactInfo = Info{
	Name:        "exact",
	Description: "proven minimum cut under a max-deviation balance bound (Epsilon), by the CBC MIP solver; small graphs only",
	Source:      `reference optimum for eqs. 7-8 of Jian, Lu and Zhang, "Storm heuristic balanced graph-partition scheduling optimization method", 2018; COIN-OR CBC`,
	New:         NewExact,
}

// epsilonOrDefault validates a balance bound: 0 means DefaultEpsilon. It must be below 1: from 1
// on, the lower bound (1-ε)·w_e lets parts be empty, and from k-1 on one part may hold every
// vertex, so the bound no longer asks for k parts at all.
func epsilonOrDefault(name string, eps float64) (float64, error) {
	if !(eps >= 0 && eps < 1) {
		return 0, fmt.Errorf("%s: epsilon = %v is out of range: use a max deviation rate in [0, 1), e.g. 0.05 (0 means %v); from 1 on parts may be empty", name, eps, DefaultEpsilon)
	}
	if eps == 0 {
		return DefaultEpsilon, nil
	}
	return eps, nil
}

// Schedule implements Scheduler (partition, then SpreadSlots).
func (s *Exact) Schedule(ctx context.Context, p *Problem) (*Assignment, error) {
	return PartitionScheduler{s}.Schedule(ctx, p)
}

// ExactResult is what the solver proved.
type ExactResult struct {
	Parts   []int
	Cut     float64 // cut weight of Parts (merged undirected edge weights)
	Optimal bool    // CBC proved Cut minimal under the bound
	Bound   float64 // CBC's lower bound on the cut (= Cut when Optimal; NaN if not reported)
	Status  string  // CBC's status line
	Elapsed time.Duration
}

// NotProvenError is returned with a feasible partition when the time limit
// stopped the solver before it proved optimality.
type NotProvenError struct {
	Cut, Bound float64
	Limit      time.Duration
}

func (e *NotProvenError) Error() string {
	return fmt.Sprintf("exact: not proven optimal: the %v time limit stopped the solver with cut %g and lower bound %g; raise the time limit or use a smaller graph", e.Limit, e.Cut, e.Bound)
}

// ErrExactInfeasible is wrapped when no partition meets the balance bound.
var ErrExactInfeasible = errors.New("no partition meets the balance bound")

// Partition implements Partitioner. See Exact for the NotProvenError case.
func (s *Exact) Partition(ctx context.Context, g *topologies.Graph, k int) ([]int, error) {
	r, err := s.Solve(ctx, g, k)
	if err != nil {
		return nil, err
	}
	if !r.Optimal {
		return r.Parts, &NotProvenError{Cut: r.Cut, Bound: r.Bound, Limit: s.limit(ctx)}
	}
	return r.Parts, nil
}

func (s *Exact) limit(ctx context.Context) time.Duration {
	l := s.TimeLimit
	if l <= 0 {
		l = 60 * time.Second
	}
	if d, ok := ctx.Deadline(); ok {
		if left := time.Until(d); left < l {
			l = left
		}
	}
	return l
}

// Solve runs CBC and reports the partition and its status. The error is
// non-nil for bad input, a missing solver, infeasibility, or a time limit
// hit before any feasible partition was found.
func (s *Exact) Solve(ctx context.Context, g *topologies.Graph, k int) (*ExactResult, error) {
	n := g.N()
	if err := CheckK(k, n); err != nil {
		return nil, err
	}
	if n > MaxExactVertices {
		return nil, fmt.Errorf("exact: the graph has %d vertices, more than the %d the MIP reference proves in reasonable time: use a smaller graph, or mlfm for a near-optimal partition", n, MaxExactVertices)
	}
	if k > MaxExactK {
		return nil, fmt.Errorf("exact: k = %d is above %d, where the MIP reference stops proving in reasonable time: use k <= %d, or mlfm for a near-optimal partition", k, MaxExactK, MaxExactK)
	}
	eps, err := epsilonOrDefault("exact", s.Epsilon)
	if err != nil {
		return nil, err
	}
	solver := s.Solver
	if solver == "" {
		solver = "cbc"
	}
	path, err := exec.LookPath(solver)
	if err != nil && s.Method != "bb" {
		return nil, fmt.Errorf("exact: the CBC MIP solver %q is not installed: run .ci/setup.sh or apt-get install coinor-cbc (%w)", solver, err)
	}
	switch s.Method {
	case "", "bb", "cbc":
	default:
		return nil, fmt.Errorf("exact: method %q: use \"\" (branch and bound, then CBC), \"bb\" or \"cbc\"", s.Method)
	}
	limit := s.limit(ctx)
	if limit <= 0 {
		return nil, fmt.Errorf("exact: no time left before the context deadline: %w", context.DeadlineExceeded)
	}
	adj := g.Undirected()
	w := kpartWeights(g)
	if k == 1 {
		return &ExactResult{Parts: make([]int, n), Optimal: true, Status: "trivial (k = 1)"}, nil
	}
	if s.Method != "cbc" {
		budget := limit
		if s.Method == "" {
			budget = min(limit, exactBBBudget)
		}
		var inc []int
		if h, err := (&MLFM{Seed: 1, Epsilon: eps}).Partition(ctx, g, k); err == nil {
			inc = h
		}
		start := time.Now()
		parts, cut, done := solveBB(ctx, adj, w, k, eps, budget, inc)
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("exact: %w", err)
		}
		switch {
		case done && parts == nil:
			return nil, fmt.Errorf("exact: %w: no %d-way partition has max deviation <= %v (branch and bound); raise --epsilon", ErrExactInfeasible, k, eps)
		case done:
			return &ExactResult{Parts: parts, Cut: cut, Optimal: true, Bound: cut, Status: "optimal (branch and bound)", Elapsed: time.Since(start)}, nil
		case s.Method == "bb":
			if parts == nil {
				return nil, fmt.Errorf("exact: the %v time limit stopped the branch and bound before it found any partition with max deviation <= %v: raise the limit or epsilon", limit, eps)
			}
			return &ExactResult{Parts: parts, Cut: cut, Bound: math.NaN(), Status: "stopped on time (branch and bound)", Elapsed: time.Since(start)}, nil
		}
		// Auto: the branch and bound ran out of its share; CBC gets the rest.
		limit -= time.Since(start)
		if limit < time.Second {
			limit = time.Second
		}
	}
	dir, err := os.MkdirTemp("", "stormlab-exact-")
	if err != nil {
		return nil, fmt.Errorf("exact: temp dir: %w", err)
	}
	defer os.RemoveAll(dir)
	lp, sol := filepath.Join(dir, "model.lp"), filepath.Join(dir, "model.sol")
	if err := writeExactLP(lp, adj, w, k, eps); err != nil {
		return nil, err
	}
	secs := max(1, int(math.Ceil(limit.Seconds())))
	start := time.Now()
	cmd := exec.CommandContext(ctx, path, lp, "-sec", strconv.Itoa(secs), "-ratioGap", "0", "-allowableGap", "1e-7",
		"-solve", "-solution", sol)
	out, runErr := cmd.CombinedOutput()
	elapsed := time.Since(start)
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("exact: %w", err)
	}
	if runErr != nil {
		return nil, fmt.Errorf("exact: cbc failed: %w: %s", runErr, lastLines(string(out), 5))
	}
	status, values, err := readCBCSolution(sol)
	if err != nil {
		return nil, fmt.Errorf("exact: %w (cbc output: %s)", err, lastLines(string(out), 5))
	}
	low := strings.ToLower(status)
	switch {
	case strings.Contains(low, "infeasible"):
		if strings.HasPrefix(low, "stopped") {
			return nil, fmt.Errorf("exact: the %v time limit stopped CBC before it found any partition with max deviation <= %v: raise the limit or epsilon", limit, eps)
		}
		return nil, fmt.Errorf("exact: %w: no %d-way partition has max deviation <= %v (CBC: %s); raise --epsilon", ErrExactInfeasible, k, eps, status)
	case !strings.HasPrefix(low, "optimal") && !strings.HasPrefix(low, "stopped"):
		return nil, fmt.Errorf("exact: unexpected CBC status %q", status)
	}
	parts := make([]int, n)
	seen := make([]bool, n)
	for name, val := range values {
		var v, p int
		if _, err := fmt.Sscanf(name, "x%d_%d", &v, &p); err != nil || val < 0.5 {
			continue
		}
		if v < 0 || v >= n || p < 0 || p >= k || seen[v] {
			return nil, fmt.Errorf("exact: CBC solution sets %s: not a partition (solver bug)", name)
		}
		parts[v], seen[v] = p, true
	}
	for v := range seen {
		if !seen[v] {
			return nil, fmt.Errorf("exact: CBC solution leaves vertex %d unplaced (status %q)", v, status)
		}
	}
	if err := checkBalance(w, parts, k, eps); err != nil {
		return nil, fmt.Errorf("exact: CBC solution breaks the bound: %w", err)
	}
	r := &ExactResult{Parts: parts, Cut: adjCutView(adj, parts), Status: status, Elapsed: elapsed, Bound: math.NaN()}
	if strings.HasPrefix(low, "optimal") {
		r.Optimal, r.Bound = true, r.Cut
	} else if b, ok := cbcLowerBound(string(out)); ok {
		r.Bound = b
	}
	return r, nil
}

// checkBalance verifies every part weight is within (1±eps)·w_e, with a
// relative slack of 1e-9 for float rounding and the solver's tolerance.
func checkBalance(w []float64, parts []int, k int, eps float64) error {
	pw := make([]float64, k)
	total := 0.0
	for v, p := range parts {
		pw[p] += w[v]
		total += w[v]
	}
	we := total / float64(k)
	tol := 1e-9 * math.Max(we, 1)
	for p, x := range pw {
		if x > (1+eps)*we+tol || x < (1-eps)*we-tol {
			return fmt.Errorf("part %d weighs %g, outside [%g, %g]", p, x, (1-eps)*we, (1+eps)*we)
		}
	}
	return nil
}

// writeExactLP writes the model of Exact in CPLEX LP format.
func writeExactLP(path string, adj *topologies.Adjacency, w []float64, k int, eps float64) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("exact: write model: %w", err)
	}
	bw := bufio.NewWriter(f)
	n := len(w)
	has := func(v, p int) bool { return p <= v }
	num := func(x float64) string { return strconv.FormatFloat(x, 'g', 17, 64) }
	type edge struct {
		u, v int
		w    float64
	}
	var edges []edge
	for v := 0; v < n; v++ {
		nbr, ws := adj.Neighbors(v)
		for j, u := range nbr {
			if u > v && ws[j] > 0 {
				edges = append(edges, edge{v, u, ws[j]})
			}
		}
	}
	// Terms are written one per line: LP readers limit line length.
	fmt.Fprintln(bw, "Minimize\n obj:")
	if len(edges) == 0 {
		fmt.Fprintln(bw, " 0 x0_0")
	}
	for i, e := range edges {
		fmt.Fprintf(bw, " + %s z%d\n", num(e.w), i)
	}
	fmt.Fprintln(bw, "Subject To")
	for v := 0; v < n; v++ {
		fmt.Fprintf(bw, " one%d:", v)
		for p := 0; p < k && has(v, p); p++ {
			fmt.Fprintf(bw, " + x%d_%d", v, p)
		}
		fmt.Fprintln(bw, " = 1")
	}
	for i, e := range edges {
		for p := 0; p < k; p++ {
			a, b := has(e.u, p), has(e.v, p)
			if !a && !b {
				continue
			}
			for dir := 0; dir < 2; dir++ {
				fmt.Fprintf(bw, " cut%d_%d_%d: z%d", i, p, dir, i)
				x, y := e.u, e.v
				hx, hy := a, b
				if dir == 1 {
					x, y, hx, hy = y, x, hy, hx
				}
				if hx {
					fmt.Fprintf(bw, " - x%d_%d", x, p)
				}
				if hy {
					fmt.Fprintf(bw, " + x%d_%d", y, p)
				}
				fmt.Fprintln(bw, " >= 0")
			}
		}
	}
	total := 0.0
	for _, x := range w {
		total += x
	}
	we := total / float64(k)
	for p := 0; p < k; p++ {
		for _, side := range []struct {
			name, op string
			rhs      float64
		}{{"lo", ">=", (1 - eps) * we}, {"hi", "<=", (1 + eps) * we}} {
			fmt.Fprintf(bw, " bal%s%d:", side.name, p)
			any := false
			for v := 0; v < n; v++ {
				if has(v, p) {
					fmt.Fprintf(bw, "\n + %s x%d_%d", num(w[v]), v, p)
					any = true
				}
			}
			if !any { // unreachable: p < k <= n means vertex p has x_pp
				fmt.Fprint(bw, " 0 x0_0")
			}
			fmt.Fprintf(bw, "\n %s %s\n", side.op, num(side.rhs))
		}
	}
	fmt.Fprintln(bw, "Bounds")
	for i := range edges {
		fmt.Fprintf(bw, " 0 <= z%d <= 1\n", i)
	}
	fmt.Fprintln(bw, "Binaries")
	for v := 0; v < n; v++ {
		for p := 0; p < k && has(v, p); p++ {
			fmt.Fprintf(bw, " x%d_%d\n", v, p)
		}
	}
	fmt.Fprintln(bw, "End")
	if err := errors.Join(bw.Flush(), f.Close()); err != nil {
		return fmt.Errorf("exact: write model: %w", err)
	}
	return nil
}

// readCBCSolution parses CBC's solution file: a status line ("Optimal -
// objective value 123", "Stopped on time - objective value ...",
// "Infeasible - ..."), then one line per nonzero variable: index, name,
// value, reduced cost (infeasible rows may be prefixed with "**").
func readCBCSolution(path string) (status string, values map[string]float64, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", nil, fmt.Errorf("CBC wrote no solution file: %w", err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) == 0 || lines[0] == "" {
		return "", nil, errors.New("CBC wrote an empty solution file")
	}
	status = strings.TrimSpace(lines[0])
	values = map[string]float64{}
	for _, l := range lines[1:] {
		f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(l), "**"))
		if len(f) < 3 {
			continue
		}
		val, err := strconv.ParseFloat(f[2], 64)
		if err != nil {
			return "", nil, fmt.Errorf("CBC solution line %q: %w", l, err)
		}
		values[f[1]] = val
	}
	return status, values, nil
}

// cbcLowerBound finds "Lower bound:" in CBC's closing summary.
func cbcLowerBound(out string) (float64, bool) {
	for _, l := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(l), "Lower bound:"); ok {
			if b, err := strconv.ParseFloat(strings.TrimSpace(rest), 64); err == nil {
				return b, true
			}
		}
	}
	return 0, false
}

func lastLines(s string, n int) string {
	l := strings.Split(strings.TrimSpace(s), "\n")
	if len(l) > n {
		l = l[len(l)-n:]
	}
	return strings.Join(l, " | ")
}

// BalanceBound is the max deviation rate Exact enforces.
func (s *Exact) BalanceBound() float64 { return s.Epsilon }
