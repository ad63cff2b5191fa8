// Preloaded into the service process by `npm run bench:streams` (with --expose-gc):
// SIGUSR2 runs a full garbage collection, so memory is measured without garbage.
process.on('SIGUSR2', () => {
  if (typeof global.gc === 'function') global.gc();
});
