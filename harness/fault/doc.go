// Package fault describes the faults of a run as data (Jepsen's nemesis operations): what a fault
// does (Kind), when and for how long (Fault), the --fault syntax (Parse) and the checks against a
// cluster before anything starts (Validate). Injecting them is the harness's Nemesis, through the
// cluster's control layer (infra/control); each kind says which control operations it needs.
package fault
