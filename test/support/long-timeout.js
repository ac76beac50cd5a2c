// Integration and e2e tests start real processes and ORT sessions on a shared 2-core machine.
// `testTimeout` is a global Jest option that projects ignore, so each such project sets it here.
// This is a budget against hangs, not a speed claim: no test asserts a duration.
jest.setTimeout(60_000);
