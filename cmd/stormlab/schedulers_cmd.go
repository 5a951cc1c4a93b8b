package main

import (
	"github.com/spf13/cobra"

	"github.com/stormlab/stormlab/reports"
	"github.com/stormlab/stormlab/schedulers"
)

func newSchedulersCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "schedulers",
		Short: "List the schedulers: name, description, source (authors, title, year)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			t := &reports.Table{Columns: []string{"name", "description", "source"}}
			for _, i := range schedulers.List() {
				t.AddRow(reports.Text(i.Name), reports.Text(i.Description), reports.Text(i.Source))
			}
			return writeTable(cmd.OutOrStdout(), t)
		},
	}
}
