package lab

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/montanaflynn/stats"

	"github.com/stormlab/stormlab/harness/hostspeed"
)

// RunDiagnosis is what a claim's why line compares of one run's diagnosis (run.json "diagnosis"),
// besides Row.Bottleneck and Row.Limit.
type RunDiagnosis struct {
	Migrations int // applied reschedules in the window
	Restarts   int // workers restarted in the window
	// HostStarved is the run's most starved node ("host-starved: sup4 got 0.71 of 1.00 core (...)"),
	// "" when the host starved none or StarvationRead is false.
	HostStarved string
	// StarvationRead says the run's nodes' cgroups were read (else host starvation is unknown, never
	// "not starved").
	StarvationRead bool
	// HostNs is the host's speed through the window, ns of CPU a probe step (hostspeed.Summary's
	// median; higher is slower); 0 where it was not sampled.
	HostNs float64
}

// seriesDiagnosis sums the diagnoses of one series' runs at the x a claim compares.
type seriesDiagnosis struct {
	series                 string
	runs                   int
	limits                 map[string][]string // precedence step -> the runs' bottlenecks
	migrations, restarts   int
	starved, starvedRead   int
	starvedExample, modalL string
	hostNs                 []float64 // the runs' host speeds, where sampled
}

// diagnosesOf sums the diagnosed runs of series at the x keep accepts (nil: all), invalid runs left
// out (they feed no claim).
func diagnosesOf(r *Results, keep func(x float64) bool, series string) seriesDiagnosis {
	d := seriesDiagnosis{series: series, limits: map[string][]string{}}
	for _, row := range r.Rows {
		if row.Series != series || row.Limit == "" || (keep != nil && !keep(row.X)) || row.Validity.Err() != nil {
			continue
		}
		d.runs++
		d.limits[row.Limit] = append(d.limits[row.Limit], row.Bottleneck)
		d.migrations += row.Diag.Migrations
		d.restarts += row.Diag.Restarts
		if row.Diag.StarvationRead {
			d.starvedRead++
		}
		if row.Diag.HostNs > 0 {
			d.hostNs = append(d.hostNs, row.Diag.HostNs)
		}
		if row.Diag.HostStarved != "" {
			d.starved++
			d.starvedExample = cmp.Or(d.starvedExample, row.Diag.HostStarved)
		}
	}
	for _, l := range slices.Sorted(maps.Keys(d.limits)) {
		if len(d.limits[l]) > len(d.limits[d.modalL]) {
			d.modalL = l
		}
	}
	return d
}

// text is the series' diagnoses with their figures: "kpart-dynamic (3 runs): bottleneck node at its
// quota in 2 (sup2 CPU 98% of 0.50 core; sup1 CPU 96% of 0.50 core), executor busy in 1 (...); 4
// migrations, 0 worker restarts, host-starved in 0".
func (d seriesDiagnosis) text() string {
	var parts []string
	for _, l := range slices.Sorted(maps.Keys(d.limits)) {
		figs := slices.Compact(slices.Sorted(slices.Values(d.limits[l])))
		if len(figs) > 3 {
			figs = append(figs[:3], "...")
		}
		parts = append(parts, fmt.Sprintf("%s in %d (%s)", l, len(d.limits[l]), strings.Join(figs, "; ")))
	}
	t := fmt.Sprintf("%s (%d run(s)): bottleneck %s; %d migration(s), %d worker restart(s), %s",
		d.series, d.runs, strings.Join(parts, ", "), d.migrations, d.restarts, d.starvedText())
	if len(d.hostNs) > 0 { // runs from before the probe, a target's, a simulated cluster's: not said
		t += ", " + d.hostText()
	}
	return t
}

// host is the median host speed of the series' runs, 0 when none was sampled.
func (d seriesDiagnosis) host() float64 {
	m, err := stats.Median(d.hostNs)
	if err != nil {
		return 0
	}
	return m
}

// hostText is "host 12.1 ns a probe step (median of 3)", or that it was not sampled.
func (d seriesDiagnosis) hostText() string {
	if len(d.hostNs) == 0 {
		return "host speed not sampled"
	}
	t := fmt.Sprintf("host %.1f ns a probe step (median of %d)", d.host(), len(d.hostNs))
	if len(d.hostNs) < d.runs {
		t += fmt.Sprintf(", not sampled in %d", d.runs-len(d.hostNs))
	}
	return t
}

// hostsApart says whether the series' host speeds, where sampled, are another speed
// (hostspeed.Differ: the least and the greatest).
func hostsApart(ds []seriesDiagnosis) bool {
	lo, hi := 0.0, 0.0
	for _, d := range ds {
		h := d.host()
		if h == 0 {
			continue
		}
		if lo == 0 || h < lo {
			lo = h
		}
		hi = max(hi, h)
	}
	return hostspeed.Differ(lo, hi)
}

// starvedText is how many runs the host starved, of those whose nodes' cgroups were read.
func (d seriesDiagnosis) starvedText() string {
	if d.starvedRead == 0 {
		return "host starvation not read"
	}
	t := fmt.Sprintf("host-starved in %d of %d", d.starved, d.starvedRead)
	if d.starved > 0 && !slices.Contains(d.limits["host-starved"], d.starvedExample) { // else the bottleneck shows it
		t += " (" + d.starvedExample + ")"
	}
	if d.starvedRead < d.runs {
		t += fmt.Sprintf(", not read in %d", d.runs-d.starvedRead)
	}
	return t
}

// whyOf is a claim's why line: which diagnoses differ between the compared series and by how much,
// then each series' diagnoses with their figures; "" when no run of them was diagnosed (graph
// experiments). starvedBlockers are the series whose runs were more than half host-starved: the
// claim is inconclusive for that reason.
func whyOf(r *Results, keep func(x float64) bool, series []string) (why string, starvedBlockers []string) {
	var ds []seriesDiagnosis
	for _, s := range series {
		d := diagnosesOf(r, keep, s)
		if d.runs == 0 {
			continue
		}
		ds = append(ds, d)
		if 2*d.starved > d.runs {
			starvedBlockers = append(starvedBlockers, fmt.Sprintf("%d of %d runs of %s host-starved (%s): the host did not give the nodes their quotas, so the runs measure the host, not the scheduler",
				d.starved, d.runs, d.series, d.starvedExample))
		}
	}
	if len(ds) == 0 {
		return "", starvedBlockers
	}
	var per []string
	for _, d := range ds {
		per = append(per, d.text())
	}
	return differences(ds) + " " + strings.Join(per, "; ") + ".", starvedBlockers
}

// differences names the diagnoses that differ between the series: the bottleneck most of their runs
// had, the migrations, the worker restarts and the host-starved runs, each with every series' figure.
func differences(ds []seriesDiagnosis) string {
	if len(ds) < 2 {
		return "One series diagnosed:"
	}
	var diff []string
	// figure adds name when key differs between the series, with each one's show.
	figure := func(name string, key, show func(seriesDiagnosis) string) {
		var keys []string
		for _, d := range ds {
			keys = append(keys, key(d))
		}
		if len(slices.Compact(keys)) > 1 {
			var each []string
			for _, d := range ds {
				each = append(each, d.series+" "+show(d))
			}
			diff = append(diff, name+" ("+strings.Join(each, ", ")+")")
		}
	}
	bottleneck := func(d seriesDiagnosis) string {
		return fmt.Sprintf("%s in %d of %d", d.modalL, len(d.limits[d.modalL]), d.runs)
	}
	migrations := func(d seriesDiagnosis) string {
		return fmt.Sprintf("%.1f per run", float64(d.migrations)/float64(d.runs))
	}
	restarts := func(d seriesDiagnosis) string {
		return fmt.Sprintf("%.1f per run", float64(d.restarts)/float64(d.runs))
	}
	starvedShare := func(d seriesDiagnosis) string { // what is compared: the share starved, or not read
		if d.starvedRead == 0 {
			return "not read"
		}
		return fmt.Sprintf("%.2f", float64(d.starved)/float64(d.starvedRead))
	}
	figure("bottleneck", bottleneck, bottleneck)
	figure("migrations", migrations, migrations)
	figure("worker restarts", restarts, restarts)
	figure("host starvation", starvedShare, seriesDiagnosis.starvedText)
	if hostsApart(ds) {
		var each []string
		for _, d := range ds {
			each = append(each, d.series+" "+d.hostText())
		}
		diff = append(diff, "host speed ("+strings.Join(each, ", ")+")")
	}
	if len(diff) == 0 {
		return "The diagnoses do not differ between the series:"
	}
	return "Differ: " + strings.Join(diff, "; ") + "."
}
