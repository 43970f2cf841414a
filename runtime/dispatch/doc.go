// Package dispatch is the typed method dispatch of the generated
// connections over runtime/jsonrpc: the method descriptors a generated
// package lays out as static data (Method, Request, Notification), inbound
// routing to the handler through the package's one routing function per
// side (Routes, Route), outbound calls and notifications (End), and the
// capability gates' evaluation (GateTable, GatedMethods, Grant).
//
// Its code is not generic over the message types: Go compiles a generic
// function, or a method of a generic type, once per type argument in the
// package that instantiates it, so a generic dispatcher would cost each
// generated package functions per method. It takes a *Method and messages
// as any (pointers to generated types) instead.
package dispatch
