// The `ssh_key` provider: a key pair the SSH actions authenticate with. Creating one without
// credentials (`POST /providers {"type": "ssh_key"}`) generates a new ed25519 pair; the public key
// is shown back (settings) for the user to add to the server's authorized_keys, the private key is
// kept encrypted and only handed to the actions.
import type * as Ssh2 from 'ssh2';
import { defineProvider, z } from '@capture/sdk';
import { lazyImport } from '@capture/sdk/async';

// ssh2 (with its crypto bindings) is loaded on the first SSH connection or key, not at start-up.
// The package is CommonJS: its `utils` are only on the default export.
export const loadSsh2 = lazyImport(() => import('ssh2').then((m) => (m as unknown as { default: typeof Ssh2 }).default));

export const SSH_KEY = 'ssh_key';

/**
 * A new ed25519 pair in OpenSSH format. ssh2's generator drops a leading zero byte of the public
 * key (about one pair in 256 comes out with 31 bytes, which nothing can parse): such a pair is
 * thrown away and another made.
 */
export async function generateEd25519(comment?: string): Promise<{ private: string; public: string }> {
  const ssh2 = await loadSsh2();
  for (;;) {
    const pair = ssh2.utils.generateKeyPairSync('ed25519', comment ? { comment } : {});
    if (!(ssh2.utils.parseKey(pair.private) instanceof Error)) return pair;
  }
}

export const sshKey = defineProvider({
  type: SSH_KEY,
  title: 'SSH Key Pair',
  description: 'A key pair for Run SSH Command, SFTP Upload and SFTP Download. Created without credentials, a new ed25519 pair is generated: add its public key to ~/.ssh/authorized_keys on your server.',
  credentials: z.object({
    private_key: z.string().min(1, 'is required').describe('OpenSSH or PEM private key'),
    passphrase: z.string().optional().describe('When the private key is encrypted'),
  }),
  settings: z.object({
    public_key: z.string().describe('The line to add to authorized_keys'),
  }),
  async generate() {
    const pair = await generateEd25519('capture-service');
    return { credentials: { private_key: pair.private }, settings: { public_key: pair.public } };
  },
});
