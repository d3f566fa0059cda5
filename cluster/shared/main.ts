/** Entry-point wrapper: a startup failure is one clear JSON log line and exit code 1, never a raw stack. */
export async function runMain(service: string, main: () => Promise<unknown>): Promise<void> {
  try {
    await main();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(
      `${JSON.stringify({ level: 'fatal', service, message: `startup failed: ${message}` })}\n`,
    );
    process.exit(1);
  }
}
