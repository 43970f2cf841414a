//go:build !unix

package roots

// openNoBlock: no flag is needed where opens do not block on FIFOs.
const openNoBlock = 0
