// Package images builds the container images of a stormlab cluster on the local Docker engine. No
// registry is reachable, so nothing is pulled: every image descends from a Debian base made here.
//
//	base       debootstrap --variant=minbase bookworm, then `docker import`
//	java       base + openjdk-17-jre-headless, iproute2, procps
//	zookeeper  java + ZooKeeper 3.9.4 from Maven Central (the version of Storm 2.8's client)
//	storm      java + Apache Storm 2.8.3 from Maven Central laid out as a storm.home, with the stormlab
//	           bridge scheduler in extlib-daemon/ when infra/docker/bridge/target/stormlab-bridge.jar exists
//	service    base + the Linux binary of cmd/stormlab-service (built with `go build`), when that exists
//
// Each image is tagged stormlab/<name>:<hash>, where the hash covers everything that goes into it: the
// embedded Dockerfile context, the tags of the images it builds on, and the host files copied in (the
// bridge jar, the service binary). A build whose tag exists is skipped, so a warm Builder.Build costs a
// few inspections. Choices where the plan was vague:
//   - Storm 2.8.3, not 2.8.4: the 2.8.4 parent POM (org.apache.storm:storm:pom:2.8.4) is not served by
//     the Maven mirror this project reaches, so no 2.8.4 artifact resolves.
//   - storm-core is left out of lib/: it pulls storm-clojure, whose dependencies live on clojars (not
//     reachable). The daemons are in storm-server; storm-core adds only the clojure DSL and CLI commands.
//   - Storm UI (storm-webapp) is not published to Maven Central, so role "ui" runs StormlabUI, a small
//     REST server (files/storm/maven/lib/src) serving the subset of /api/v1 the harness reads.
//   - The kernels here are built without sch_netem, so tc netem cannot delay packets. Network delay
//     between nodes is emulated in Storm's messaging layer instead: org.stormlab.net.DelayContext wraps
//     the Netty transport and delays batches sent to workers on other hosts. It ships in the topology
//     jars (topologies/storm), not in the image: a worker loads its transport from the topology's conf
//     with the topology jar on its classpath, so the delay works on any Storm cluster, a user's too.
//     iproute2 stays in the image for tc's other uses.
//   - Worker JVMs start on a fraction of a core, where loading and verifying Storm's classes is most of
//     their start. The storm image carries a class-data archive (AppCDS, /opt/storm/worker.jsa) of the
//     classes in files/storm/storm/worker.classlist, which were recorded from a worker of the Throughput
//     chain (`--worker-childopts -XX:DumpLoadedClassList=/tmp/worker.classlist` on a one-worker run, the
//     file copied out of the supervisor); infra/docker's worker.childopts map it. Record it again when
//     Storm's version changes: a stale list only archives fewer classes.
//   - Maven runs on the host (its ~/.m2 cache makes rebuilds fast) and the jars go into the build
//     context; the JDK is not needed in the images.
package images
