// e2e suites start the apps from one build; build it if `npm test` has not just done so.
const { existsSync } = require('node:fs');
const { execSync } = require('node:child_process');
const { join } = require('node:path');

module.exports = async () => {
  const root = join(__dirname, '..', '..');
  if (process.env.MESH_SKIP_BUILD === '1' && existsSync(join(root, 'dist'))) return;
  execSync('npm run -s build', { cwd: root, stdio: 'inherit' });
};
