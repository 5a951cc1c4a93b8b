package lab

import (
	"fmt"
	"io"
	"strings"
)

// Paper is one publication the experiments reproduce or test. Every place a
// user reads (tables, notes, claims, summaries) cites it by authors, title
// and year through Cite, never by a file name.
type Paper struct {
	Key     string // BibTeX key, also the suffix of summary-<key>.md
	Authors string // as cited: "Jian, Lu and Zhang"
	Title   string
	Venue   string
	Year    int
	Note    string // where to find it (DOI, arXiv)
}

// Papers is the papers table (refs.bib is written from it).
var Papers = []Paper{
	{Key: "jian2018kpart", Authors: "Jian, Lu and Zhang", Year: 2018,
		Title: "Storm heuristic balanced graph-partition scheduling optimization method (Storm 启发式均衡图划分调度优化方法)",
		Venue: "Journal of Chinese Computer Systems (小型微型计算机系统)", Note: "http://xwxt.sict.ac.cn/CN/abstract/abstract4740.shtml"},
	{Key: "choi2021deadline", Authors: "Choi, Jeon, Lim, Bok and Yoo", Year: 2021,
		Title: "Dynamic Task Scheduling Scheme for Processing Real-Time Stream Data in Storm Environments",
		Venue: "Applied Sciences 11(17), 7942", Note: "doi:10.3390/app11177942"},
	{Key: "eidenbenz2016spd", Authors: "Eidenbenz and Locher", Year: 2016,
		Title: "Task Allocation for Distributed Stream Processing",
		Venue: "IEEE INFOCOM 2016 (extended version: arXiv:1601.06060)", Note: "arXiv:1601.06060"},
}

// PaperByKey finds a paper of the table.
func PaperByKey(key string) (Paper, bool) {
	for _, p := range Papers {
		if p.Key == key {
			return p, true
		}
	}
	return Paper{}, false
}

// Cite is the short citation a reader sees: authors, "title", year, and
// where in the paper (figure, section), e.g. `Jian, Lu and Zhang, "Storm
// heuristic ...", 2018, Fig. 5`. An unknown key is printed as is.
func Cite(key, where string) string {
	p, ok := PaperByKey(key)
	if !ok {
		return strings.TrimSpace(key + " " + where)
	}
	s := fmt.Sprintf("%s, %q, %d", p.Authors, shortTitle(p.Title), p.Year)
	if where != "" {
		s += ", " + where
	}
	return s
}

// shortTitle drops a parenthesised original-language title.
func shortTitle(t string) string {
	if i := strings.Index(t, " ("); i > 0 {
		return t[:i]
	}
	return t
}

// WriteBib writes the papers table as BibTeX (refs.bib).
func WriteBib(w io.Writer) error {
	var b strings.Builder
	for _, p := range Papers {
		authors := strings.ReplaceAll(strings.ReplaceAll(p.Authors, ", ", " and "), " and and ", " and ")
		fmt.Fprintf(&b, "@article{%s,\n  author = {%s},\n  title = {%s},\n  journal = {%s},\n  year = {%d},\n  note = {%s}\n}\n\n",
			p.Key, authors, p.Title, p.Venue, p.Year, p.Note)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
