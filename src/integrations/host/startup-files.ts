/**
 * The files a host loads itself when a conversation starts, as its preset's initial load finds
 * them, each also under its real path (the host may reach a file through a link): what the
 * profiles of hosts that load a startup chain keep in their state, to tell "loaded" later.
 */
import type { FileSystem } from "../../io/file-system.js";
import type { SessionOptions } from "../../session/options.js";
import { createSession } from "../../session/session.js";

export async function startupFiles(options: SessionOptions & { fs: FileSystem }): Promise<string[]> {
  const session = await createSession(options);
  try {
    const paths = session.initialFiles.map((file) => file.path);
    const real = await Promise.all(paths.map((path) => options.fs.realpath(path).catch(() => path)));
    return [...new Set([...paths, ...real])];
  } finally {
    await session.close();
  }
}
