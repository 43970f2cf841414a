package acp
// 23422218741
