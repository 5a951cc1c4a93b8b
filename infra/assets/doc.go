// Package assets finds the built parts stormlab needs besides its own binary: the bridge scheduler
// jar, the topologies jar (with its submit classpath) and the scheduler service, from which the
// cluster images are built. They live in a stormlab home, a folder laid out like the source checkout.
//
// The home is, in order: $STORMLAB_HOME; the folder of the running executable (or a checkout above
// it); a source checkout above the working directory; the home `stormlab setup` made in the user's
// cache folder ($XDG_CACHE_HOME/stormlab/home). A checkout is a folder whose go.mod declares this
// module; a home made by setup is marked by a Marker file. So the binary works from any folder once
// `stormlab setup` has run, and a developer in the checkout needs nothing.
package assets
