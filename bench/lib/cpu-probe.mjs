// Loaded into a server process by `node --import ./bench/lib/cpu-probe.mjs …` (bench/server.mjs): answers
// "cpu" on the IPC channel with the process's own CPU time (process.cpuUsage(), user + system, µs), so the
// benchmark can charge each server exactly the CPU it spent, apart from the load generator's.
if (process.send) {
  process.on("message", (message) => {
    if (message !== "cpu") return;
    const { user, system } = process.cpuUsage();
    process.send({ cpu: user + system });
  });
  // The channel alone must not keep a server process alive.
  process.channel?.unref();
}
