// `gateway ledger show | head` closes our stdout early. Node then emits EPIPE on the stream, and
// an unhandled stream error would end the process with a stack trace. The reader chose to stop
// reading: drop the rest of the output quietly and let the command finish as usual.
export function ignoreClosedPipes(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE' || error.code === 'ERR_STREAM_DESTROYED') return;
      throw error;
    });
  }
}
