package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/stormlab/stormlab/schedulers"
)

func newSchedulersCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "schedulers",
		Short: "List the schedulers: name, description, source (authors, title, year)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			for _, i := range schedulers.List() {
				fmt.Fprintf(tw, "%s\t%s\t%s\n", i.Name, i.Description, i.Source)
			}
			return tw.Flush()
		},
	}
}
