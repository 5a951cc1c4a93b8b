package main

import (
	"archive/zip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/stormlab/stormlab/infra/assets"
	"github.com/stormlab/stormlab/infra/protocol"
)

// The files install-files writes.
const (
	installBridgeJar     = "stormlab-bridge.jar"
	installInstrumentJar = "stormlab-instrument.jar"
	installNimbusYAML    = "storm.yaml.nimbus"
	installSupervisorYML = "storm.yaml.supervisors"
	installReadme        = "README.md"
)

// instrumentPrefix is the package of the workers' instrumentation inside the topologies jar.
const instrumentPrefix = "org/stormlab/instrument/"

func newBridgeCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bridge",
		Short: "Install the scheduler bridge on your own Storm cluster",
	}
	var serviceURL string
	install := &cobra.Command{
		Use:   "install-files DIR [--service URL]",
		Short: "Write the bridge jar, the instrumentation jar, the storm.yaml lines and a README into DIR",
		Long: "install-files writes into DIR (new or empty) what a Storm 2.8 cluster needs to run stormlab's\n" +
			"schedulers: the bridge jar (for Nimbus's extlib-daemon), the workers' instrumentation jar (for\n" +
			"every supervisor's extlib), the storm.yaml lines for Nimbus and for the supervisors, and a README\n" +
			"saying which file goes to which host and folder and which daemons to restart. --service is the\n" +
			"scheduler service's base URL as Nimbus and the workers reach it.",
		Args: exactArgs(1, "install-files takes the folder to write: stormlab bridge install-files DIR"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkServiceURL(serviceURL); err != nil {
				return err
			}
			root, err := assets.Home()
			if err != nil {
				return err
			}
			if err := installFiles(root, args[0], strings.TrimRight(serviceURL, "/")); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s, %s, %s, %s and %s to %s: follow %s\n", installBridgeJar, installInstrumentJar,
				installNimbusYAML, installSupervisorYML, installReadme, args[0], filepath.Join(args[0], installReadme))
			return nil
		},
	}
	install.Flags().StringVar(&serviceURL, "service", "http://SERVICE-HOST:7070", "the scheduler service's base URL as Nimbus and the workers reach it")
	cmd.AddCommand(install)
	return cmd
}

func checkServiceURL(u string) error {
	if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
		return fmt.Errorf("--service %q is not an http(s) URL: give the service's base URL as the cluster reaches it, e.g. http://10.0.0.5:7070", u)
	}
	return nil
}

// installFiles writes the install files into dir, which must be new or empty. Bad input (a
// non-empty or unwritable dir, jars not built) is an error naming the fix; nothing is left half
// written in a dir it created.
func installFiles(root, dir, serviceURL string) (err error) {
	bridge := assets.Path(root, assets.BridgeJar)
	topo := assets.Path(root, assets.TopologiesJar)
	for _, j := range []struct{ path, build string }{
		{bridge, "mvn -q -o -f infra/docker/bridge/pom.xml package"},
		{topo, "mvn -q -o -f topologies/storm/pom.xml package"},
	} {
		if _, err := os.Stat(j.path); err != nil {
			return fmt.Errorf("%s is missing: build it first (%s, or make setup)", j.path, j.build)
		}
	}
	entries, rerr := os.ReadDir(dir)
	switch {
	case rerr == nil && len(entries) > 0:
		return fmt.Errorf("%s is not empty (%d entries): give a new or empty folder, so no file of yours is replaced", dir, len(entries))
	case rerr != nil && !errors.Is(rerr, fs.ErrNotExist):
		return fmt.Errorf("cannot read %s: %w: give a new or empty folder you can write to", dir, rerr)
	}
	created := errors.Is(rerr, fs.ErrNotExist)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("cannot create %s: %w: give a folder you can write to", dir, err)
	}
	defer func() {
		if err != nil && created {
			os.RemoveAll(dir)
		}
	}()
	if err := assets.CopyFile(bridge, filepath.Join(dir, installBridgeJar)); err != nil {
		return fmt.Errorf("cannot write into %s: %w: give a folder you can write to", dir, err)
	}
	if err := instrumentJar(topo, filepath.Join(dir, installInstrumentJar)); err != nil {
		return err
	}
	files := map[string]string{
		installNimbusYAML:    nimbusYAML(serviceURL),
		installSupervisorYML: supervisorYAML(serviceURL),
		installReadme:        installREADME(serviceURL),
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			return fmt.Errorf("write %s: %w", name, err)
		}
	}
	return nil
}

// instrumentJar writes a jar of the topologies jar's instrumentation package alone (the hook and
// reporter the workers load), for topologies that are not stormlab's own.
func instrumentJar(topoJar, dst string) error {
	zr, err := zip.OpenReader(topoJar)
	if err != nil {
		return fmt.Errorf("read %s: %w (rebuild it: mvn -q -o -f topologies/storm/pom.xml package)", topoJar, err)
	}
	defer zr.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("write %s: %w", dst, err)
	}
	zw := zip.NewWriter(out)
	n := 0
	for _, f := range zr.File {
		if !strings.HasPrefix(f.Name, instrumentPrefix) && f.Name != "META-INF/MANIFEST.MF" {
			continue
		}
		if err := copyZipEntry(zw, f); err != nil {
			zw.Close()
			out.Close()
			return fmt.Errorf("write %s: %w", dst, err)
		}
		if strings.HasSuffix(f.Name, ".class") {
			n++
		}
	}
	if err := errors.Join(zw.Close(), out.Close()); err != nil {
		return fmt.Errorf("write %s: %w", dst, err)
	}
	if n == 0 {
		return fmt.Errorf("%s holds no %s classes: rebuild it (mvn -q -o -f topologies/storm/pom.xml package)", topoJar, instrumentPrefix)
	}
	return nil
}

func copyZipEntry(zw *zip.Writer, f *zip.File) error {
	r, err := f.Open()
	if err != nil {
		return err
	}
	defer r.Close()
	h := f.FileHeader
	w, err := zw.CreateHeader(&h)
	if err != nil {
		return err
	}
	_, err = io.Copy(w, r)
	return err
}

func nimbusYAML(serviceURL string) string {
	return fmt.Sprintf(`# stormlab: add to storm.yaml on every Nimbus host, then restart Nimbus.
storm.scheduler: "%s"
# where the bridge POSTs its snapshots (the scheduler service, as Nimbus reaches it)
stormlab.scheduler.url: "%s%s"
# topologies that name no scheduler (topology conf %s) get this one; storm-default is what
# Nimbus does without the bridge. Others: storm-even, storm-ras, or a Go scheduler's name.
%s: "storm-default"
# the service's token, when it runs with --token (required when it listens beyond loopback)
#stormlab.scheduler.token: "REPLACE-WITH-THE-SERVICE-TOKEN"
`, protocol.BridgeClass, serviceURL, protocol.PathSchedule, protocol.TopologySchedulerConf, protocol.DefaultSchedulerConf)
}

func supervisorYAML(serviceURL string) string {
	return fmt.Sprintf(`# stormlab: add to storm.yaml on every supervisor host, then restart the supervisors.
# each supervisor's CPU capacity, 100 per core (e.g. 400.0 on 4 cores): the schedulers balance load
# by it (or give it per host under capacity in the target file)
#supervisor.cpu.capacity: 400.0
# the service's token, when it runs with --token; the workers send it with their reports
#stormlab.scheduler.token: "REPLACE-WITH-THE-SERVICE-TOKEN"
# (stormlab's own topologies send their reports to %s%s; they are given that URL at submission)
`, serviceURL, protocol.PathMetrics)
}

func installREADME(serviceURL string) string {
	return fmt.Sprintf(`# Installing stormlab's scheduler bridge on a Storm 2.8 cluster

Files here:

| file | goes to | on |
|---|---|---|
| %[1]s | <storm.home>/extlib-daemon/ | every Nimbus host |
| %[2]s | <storm.home>/extlib/ | every supervisor host (the workers load it) |
| %[3]s | lines to add to <storm.home>/conf/storm.yaml | every Nimbus host |
| %[4]s | lines to add to <storm.home>/conf/storm.yaml | every supervisor host |

1. Run the scheduler service where Nimbus and the workers reach it (%[5]s here):
   stormlab-service --scheduler kpart --addr :7070 --token "$TOKEN"
   A service listening beyond loopback refuses to start without a token. Uncomment
   stormlab.scheduler.token in both storm.yaml snippets and set it to the same token.
2. Copy the jars and add the storm.yaml lines as in the table.
3. Restart Nimbus (it loads the bridge as storm.scheduler) and the supervisors (their
   storm.yaml and extlib are read at start). The UI and ZooKeeper need no restart.
4. Write a target file (stormlab's docs/own-cluster.md) and run
   stormlab target check FILE
   It reports, item by item, what is reachable and installed, and what to fix.

Every topology names its scheduler in its topology conf, %[6]s (storm jar ... -c %[6]s=kpart);
storm-even, storm-default and storm-ras run inside Nimbus, any other name goes to the service. No
restart is needed to switch. Topologies naming none get %[7]s from Nimbus's storm.yaml.

stormlab's own topologies are instrumented already. Another topology reports to the service when
it registers the hook and the URL (%[2]s on the workers' classpath):
   storm jar ... -c topology.auto.task.hooks='["org.stormlab.instrument.TrafficHook"]' \
     -c topology.stats.sample.rate=1.0 -c stormlab.metrics.url=%[5]s%[8]s
`, installBridgeJar, installInstrumentJar, installNimbusYAML, installSupervisorYML, serviceURL, protocol.TopologySchedulerConf, protocol.DefaultSchedulerConf, protocol.PathMetrics)
}
