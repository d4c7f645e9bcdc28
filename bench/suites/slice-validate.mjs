// `leap slice validate` on a slice of 1,000 balls, through the umbrella bin: at most 1.3x `node -e 0`.
// Validation runs the standalone validators ajv generated from the slice schema (no zod, no ajv at
// run time) and the rules. The slice file is about 1 MB, pretty-printed as `leap slice new` writes
// it; reading and parsing it alone is measured next to it, as the floor any validator stands on.
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export default async function sliceValidate(ctx) {
  const leap = ctx.bin('cli', 'leap');
  if (!ctx.has(leap)) {
    ctx.note('slice-validate: packages/cli/dist/bin/leap.cjs is not built; skipped');
    return;
  }
  const dir = join(ctx.tmp, 'slice-validate');
  mkdirSync(dir, { recursive: true });
  const balls = [];
  for (let i = 0; i < 1000; i++) {
    const id = `ball-${String(i).padStart(4, '0')}`;
    // Ten waves of a hundred: each ball depends on two of the wave before, as a wide slice would.
    const deps =
      i < 100
        ? []
        : [
            `ball-${String(i - 100).padStart(4, '0')}`,
            `ball-${String(i - 100 + ((i + 1) % 100) - (i % 100)).padStart(4, '0')}`,
          ].filter((d, k, all) => all.indexOf(d) === k);
    balls.push({
      id,
      goal: `the ${id} module answers its ${i % 7} documented cases`,
      spec: `Everything the builder of ${id} needs: the contract, the edge cases, the files it owns and those it reads.`,
      scope: [
        { path: `src/part-${i}/index.ts`, sha256: createHash('sha256').update(id).digest('hex') },
        { path: `test/part-${i}.test.ts`, sha256: null, lines: [[1, 40]] },
      ],
      proof: { argv: ['node', '--test', `test/part-${i}.test.ts`], metric: [{ field: 'passed', better: 'higher' }] },
      rollback: `restore the scope's files of ${id} to base`,
      deps,
    });
  }
  const file = join(dir, 'slice.json');
  writeFileSync(file, `${JSON.stringify({ id: 'bench-1000', base: 'HEAD', spine: 'integrator', balls }, null, 2)}\n`);
  ctx.coldStart('leap slice validate (1,000 balls)', [leap, 'slice', 'validate', file], {
    cwd: dir,
    budget: 1.3,
    expect: 0,
  });
  // The floor under any validator: Node reading and parsing the same file, and nothing else.
  const floor = join(dir, 'read-and-parse.cjs');
  writeFileSync(floor, "JSON.parse(require('node:fs').readFileSync(process.argv[2], 'utf8'));\n");
  ctx.coldStart('the floor: node reading and parsing that slice file (JSON.parse, no validation)', [floor, file], {
    cwd: dir,
    expect: 0,
  });
  // What loading validate's code costs, apart from validating: the same files read and compiled, no slice.
  ctx.coldStart('leap slice validate --help (its code loaded, no slice read)', [leap, 'slice', 'validate', '--help'], {
    cwd: dir,
    expect: 0,
  });
}
