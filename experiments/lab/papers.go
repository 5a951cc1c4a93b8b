package lab

import (
	"fmt"
	"io"
	"strings"
)

// Paper is one publication the experiments reproduce or test. Every place a
// user reads (tables, notes, claims, summaries) cites it by authors, title
// and year through Cite (CiteShort where a line must stay short), never by
// a file name.
type Paper struct {
	Key     string // BibTeX key, also the suffix of summary-<key>.md
	Authors string // as cited: "Jian, Lu and Zhang"
	// BibAuthors are the full names, "Family, Given" joined by " and ",
	// ASCII only (pdflatex and bibtex read refs.bib).
	BibAuthors string
	Title      string // in English, ASCII
	Type       string // BibTeX entry type: "article" or "inproceedings"
	Venue      string // journal or proceedings title
	Volume     string // "11(17), 7942" style details go to Volume/Number/Pages
	Number     string
	Pages      string
	Year       int
	Note       string // where to find it (DOI, arXiv, URL, original title)
}

// Papers is the papers table (refs.bib is written from it). Full names:
// the K-PART paper's from its header in the seed text (Jian Chengfeng, Lu
// Tao, Zhang Meiyu; family name first in Chinese); the others as published.
var Papers = []Paper{
	{Key: "jian2018kpart", Authors: "Jian, Lu and Zhang", Year: 2018, Type: "article",
		BibAuthors: "Jian, Chengfeng and Lu, Tao and Zhang, Meiyu",
		Title:      "Storm heuristic balanced graph-partition scheduling optimization method",
		Venue:      "Journal of Chinese Computer Systems (Xiaoxing Weixing Jisuanji Xitong)",
		Note:       "In Chinese. http://xwxt.sict.ac.cn/CN/abstract/abstract4740.shtml"},
	{Key: "choi2021deadline", Authors: "Choi, Jeon, Lim, Bok and Yoo", Year: 2021, Type: "article",
		BibAuthors: "Choi, Dojin and Jeon, Hyeonwoo and Lim, Jongtae and Bok, Kyoungsoo and Yoo, Jaesoo",
		Title:      "Dynamic Task Scheduling Scheme for Processing Real-Time Stream Data in Storm Environments",
		Venue:      "Applied Sciences", Volume: "11", Number: "17", Pages: "7942", Note: "doi:10.3390/app11177942"},
	{Key: "eidenbenz2016spd", Authors: "Eidenbenz and Locher", Year: 2016, Type: "inproceedings",
		BibAuthors: "Eidenbenz, Raphael and Locher, Thomas",
		Title:      "Task Allocation for Distributed Stream Processing",
		Venue:      "Proceedings of the 35th IEEE International Conference on Computer Communications (INFOCOM)",
		Note:       "Extended version: arXiv:1601.06060"},
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

// CiteShort is the citation of a line that must stay short (the terminal
// summary): "Jian et al. 2018, Fig. 5", "Eidenbenz and Locher 2016".
func CiteShort(key, where string) string {
	p, ok := PaperByKey(key)
	if !ok {
		return strings.TrimSpace(key + " " + where)
	}
	names := strings.FieldsFunc(p.Authors, func(r rune) bool { return r == ',' })
	var s string
	switch {
	case len(names) > 1 || strings.Count(p.Authors, " and ") > 1:
		s = strings.TrimSpace(names[0]) + " et al."
	default:
		s = p.Authors
	}
	s = fmt.Sprintf("%s %d", s, p.Year)
	if where != "" {
		s += ", " + where
	}
	return s
}

// SourceWhere is the "where in the paper" part of a Source made by Cite
// (the text after the citation), "" when there is none.
func SourceWhere(key, source string) string {
	return strings.TrimPrefix(strings.TrimPrefix(source, Cite(key, "")), ", ")
}

// WriteBib writes the papers table as BibTeX (refs.bib): ASCII only, full
// author names, @article for journals and @inproceedings for conferences.
func WriteBib(w io.Writer) error {
	var b strings.Builder
	for _, p := range Papers {
		venue := "journal"
		if p.Type == "inproceedings" {
			venue = "booktitle"
		}
		fmt.Fprintf(&b, "@%s{%s,\n  author = {%s},\n  title = {{%s}},\n  %s = {%s},\n  year = {%d},\n",
			p.Type, p.Key, p.BibAuthors, p.Title, venue, p.Venue, p.Year)
		for _, f := range [][2]string{{"volume", p.Volume}, {"number", p.Number}, {"pages", p.Pages}, {"note", p.Note}} {
			if f[1] != "" {
				fmt.Fprintf(&b, "  %s = {%s},\n", f[0], f[1])
			}
		}
		b.WriteString("}\n\n")
	}
	for i, r := range b.String() {
		if r > 127 {
			return fmt.Errorf("refs.bib: non-ASCII character %q at byte %d: pdflatex and bibtex cannot read it; fix the Papers table", r, i)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
