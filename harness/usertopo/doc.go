// Package usertopo runs a user's own topology. A user topology is any Storm topology not written for stormlab: a Flux YAML file (optionally with the
// user's jar holding its classes) or a compiled jar with a main class that calls StormSubmitter. It is
// run and measured like the Java topologies under topologies/storm, without a change to the user's code:
//
//   - Instrumentation through the topology conf. The submitter runs org.stormlab.instrument.Instrumented
//     (in the topologies jar), which puts the task hook (topology.auto.task.hooks), the stats sample rate
//     1.0 and the reporter's settings into the system property storm.options and calls the user's main
//     (or Flux's) in the same JVM; StormSubmitter merges storm.options over the conf the main built, as
//     `storm jar -c key=value` does. storm.options replaces a key, so the topology's own task hooks are
//     kept by passing them along: for Flux they are read from the YAML's config; a compiled main's own
//     hooks cannot be seen before it runs and are replaced (partial: such a topology loses its hooks).
//   - How the classes reach the workers: the harness submits one merged jar holding the user's jar
//     (first, so its entries win), stormlab's instrumentation classes (org/stormlab/instrument and the
//     HdrHistogram shaded under org/stormlab/shaded) and, for Flux, flux-core of the cluster's Storm
//     version (a shaded jar: Flux, flux-wrappers, commons-cli, snakeyaml) and the YAML as the classpath
//     resource fluxResource. Nothing needs to be installed on the cluster, so this works on the harness's
//     containers and on a target alike; the price is a jar a few hundred kB larger.
//   - The topology's name: for Flux the YAML's `name:` (what Flux submits under); for a compiled jar the
//     user gives it (Spec.Name, `--name`), since the harness cannot know what the main submits before
//     it runs. A main that submits under another name fails its submission: the submitter hook
//     org.stormlab.instrument.NameCheck (storm.topology.submission.notifier.plugin.class) kills what it
//     submitted at once and names both names, so nothing is left running (the topology's own submitter
//     hook, if its main sets one, is replaced).
//
// Bad input is refused before anything is submitted (errors wrap ErrBadTopology): a missing or
// unreadable file, a YAML that does not parse or has no name, a jar that is not a jar or lacks the main
// class, and a Flux topology that Flux itself rejects (checked by Flux's --dry-run in a local JVM, which
// builds every component: an unknown class fails there).
package usertopo
