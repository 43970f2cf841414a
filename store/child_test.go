package store

// childEnv, when set, makes the test binary a child process of a test
// instead (see TestMain); its value says which.
const childEnv = "ACPGEN_STORE_TEST_CHILD"

func runChild(which string) {
	panic("unknown child " + which)
}
