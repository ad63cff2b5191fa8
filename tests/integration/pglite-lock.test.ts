import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { DataDirInUseError, openPgliteDatabase } from '../../src/store/pglite';
import { makeTempDir } from '../support/test-service';

describe('the embedded database folder is used by one process at a time', () => {
  let other: ChildProcess | undefined;
  afterEach(() => {
    other?.kill('SIGKILL');
  });

  it('refuses a folder that a live process holds, and takes it over once that process is gone', async () => {
    const dataDir = path.join(await makeTempDir(), 'pglite');
    // Another live process owns the lock, as a second running service would.
    other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    await fs.writeFile(`${dataDir}.lock`, String(other.pid));

    await expect(openPgliteDatabase(dataDir)).rejects.toThrow(DataDirInUseError);
    await expect(openPgliteDatabase(dataDir)).rejects.toThrow(new RegExp(`in use by process ${other.pid}`));

    // Killed without cleaning up (as with SIGKILL): its lock is stale now.
    const exited = new Promise((resolve) => other!.once('exit', resolve));
    other.kill('SIGKILL');
    await exited;
    const db = await openPgliteDatabase(dataDir);
    expect(await fs.readFile(`${dataDir}.lock`, 'utf8')).toBe(String(process.pid));
    await db.close();
    await expect(fs.access(`${dataDir}.lock`)).rejects.toThrow();
  });
});
