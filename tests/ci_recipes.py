#!/usr/bin/env python3
"""The CI recipes of docs/CI.md, run as written (CTest ci.recipes).

Takes the GitHub Actions and the GitLab CI YAML blocks out of docs/CI.md and
runs their shell steps here, the way each CI would:

  - every job (every shard of a matrix or `parallel:`) in an empty folder of
    its own, deleted when the job ends (CI jobs run on separate machines):
    a GitHub job sees only what its steps check out and download, a GitLab
    job its checkout and the artifacts of its `needs`;
  - actions/checkout copies the source tree (without .git: a container
    without git gets a tarball); upload-artifact and download-artifact keep
    the files under the paths' common folder, without their executable bits
    (GitHub's artifacts do not keep them);
  - `${{ matrix.X }}`, `CI_NODE_INDEX` and `CI_NODE_TOTAL` as the CI sets
    them; the workflow's `env:` and the pipeline's `variables:`;
  - apt-get is a stand-in that installs nothing and fails on a package that
    is not installed here (so the names in the doc are checked).

The pipelines run with the doc's settings (the reference: the merge must
pass), then the shard and merge jobs run again with SUT=mutant:max-dim: the
shards must pass (exit 1 is left to the merge), the merge must fail, and the
merged reports must still be uploaded; and (GitHub) with the example adapter
library installed in dist/, which the installed worker must run.

    tests/ci_recipes.py SOURCE_DIR WORK_DIR
"""
import fnmatch
import os
import re
import shutil
import stat
import subprocess
import sys

try:
    import yaml
except ImportError:
    sys.exit("ci recipes: needs PyYAML (Debian: python3-yaml; scripts/setup.sh installs it)")


class RecipeError(Exception):
    pass


def yaml_block(doc, heading):
    """The first ```yaml block after the line `heading`."""
    at = doc.find("\n" + heading + "\n")
    if at < 0:
        raise RecipeError("docs/CI.md has no heading '%s'" % heading)
    m = re.compile(r"^```yaml\n(.*?)^```", re.S | re.M).search(doc, at)
    if not m:
        raise RecipeError("docs/CI.md has no ```yaml block after '%s'" % heading)
    return yaml.safe_load(m.group(1))


def copy_source(src, dest):
    """The source tree's files, without .git and build folders."""
    files = subprocess.run(["git", "-C", src, "ls-files", "-z", "--cached", "--others",
                            "--exclude-standard"], capture_output=True)
    os.makedirs(dest, exist_ok=True)
    if files.returncode == 0:
        for rel in files.stdout.decode().split("\0"):
            path = os.path.join(src, rel)
            if rel and os.path.isfile(path):
                os.makedirs(os.path.dirname(os.path.join(dest, rel)), exist_ok=True)
                shutil.copy2(path, os.path.join(dest, rel))
    else:
        shutil.copytree(src, dest, dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns(".git", "build", "node_modules"))


def without_exec_bits(root):
    for folder, _, names in os.walk(root):
        for n in names:
            p = os.path.join(folder, n)
            mode = os.stat(p).st_mode
            os.chmod(p, mode & ~(stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH))


class Runner:
    def __init__(self, source, work):
        self.source, self.work = source, work
        self.store = os.path.join(work, "artifacts")
        self.bin = os.path.join(work, "fake-bin")
        os.makedirs(self.store)
        os.makedirs(self.bin)
        # apt-get: checks the packages named are installed here; installs nothing
        with open(os.path.join(self.bin, "apt-get"), "w") as f:
            f.write("""#!/bin/sh
# docs/CI.md's apt-get, in tests/ci_recipes.py: checks, installs nothing.
[ "$1" = update ] && exit 0
[ "$1" = install ] || { echo "apt-get stand-in: unexpected '$*'" >&2; exit 100; }
shift
for p in "$@"; do
  case $p in -*) continue ;; esac
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
    { echo "apt-get stand-in: docs/CI.md installs '$p', which is not installed here" >&2; exit 100; }
done
""")
        os.chmod(os.path.join(self.bin, "apt-get"), 0o755)
        self.env = {k: v for k, v in os.environ.items()
                    if not k.startswith(("BROADCHECK_", "CI_", "GITHUB_"))}
        self.env["PATH"] = self.bin + os.pathsep + self.env.get("PATH", "")
        self.jobs = 0

    def workspace(self, name):
        self.jobs += 1
        d = os.path.join(self.work, "job-%02d-%s" % (self.jobs, re.sub(r"[^\w.-]", "_", name)))
        os.makedirs(d)
        return d

    def shell(self, where, script, env, what):
        """Runs script with bash -e (GitHub's default; GitLab's runner stops
        at a failing line too); returns its exit code, printing its output."""
        r = subprocess.run(["bash", "-e", "-c", script], cwd=where, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        out = r.stdout.decode(errors="replace")
        print("  %s: exit %d" % (what, r.returncode))
        for line in out.splitlines()[-25:]:
            print("    | " + line)
        return r.returncode

    # ---- artifacts ----------------------------------------------------------

    def upload(self, name, where, paths):
        """Files under the paths' common folder (GitHub's rule), or under
        the workspace (GitLab's), into the store."""
        found = []
        for p in paths:
            matches = [m for m in (sorted(_glob(where, p)) if any(c in p for c in "*?[") else
                                   [os.path.join(where, p)]) if os.path.exists(m)]
            found += matches
        if not found:
            raise RecipeError("artifact '%s': nothing matches %s" % (name, paths))
        return found

    def keep(self, name, root, files):
        dest = os.path.join(self.store, name)
        shutil.rmtree(dest, ignore_errors=True)
        os.makedirs(dest)
        for f in files:
            rel = os.path.relpath(f, root)
            target = os.path.join(dest, rel) if rel != "." else dest
            if os.path.isdir(f):
                shutil.copytree(f, target, dirs_exist_ok=True)
            else:
                os.makedirs(os.path.dirname(target), exist_ok=True)
                shutil.copy2(f, target)
        without_exec_bits(dest)

    def fetch(self, names, dest):
        for n in names:
            src = os.path.join(self.store, n)
            if not os.path.isdir(src):
                raise RecipeError("artifact '%s' was never uploaded" % n)
            shutil.copytree(src, dest, dirs_exist_ok=True)

    # ---- GitHub Actions -------------------------------------------------------

    def github(self, wf, only=None, env_over=None):
        """Runs the workflow's jobs in `needs` order; returns {job: exit}."""
        results = {}
        order = _needs_order({k: v.get("needs", []) for k, v in wf["jobs"].items()})
        for job in order:
            if only and job not in only:
                continue
            spec = wf["jobs"][job]
            matrix = spec.get("strategy", {}).get("matrix", {})
            combos = [{}]
            for key, values in matrix.items():
                combos = [dict(c, **{key: v}) for c in combos for v in values]
            status = 0
            for combo in combos:
                status |= self.github_job(job, spec, combo, wf.get("env", {}), env_over or {})
            results[job] = status
        return results

    def github_job(self, job, spec, matrix, wf_env, env_over):
        label = job + "".join(" %s=%s" % kv for kv in matrix.items())
        print("github: job %s" % label)
        where = self.workspace("gh-" + label)
        env = dict(self.env)
        env.update({k: str(v) for k, v in wf_env.items()})
        env.update({k: str(v) for k, v in spec.get("env", {}).items()})
        env.update(env_over)
        failed = 0
        for step in spec["steps"]:
            if failed and "always()" not in str(step.get("if", "")):
                continue
            sub = lambda s: _expressions(str(s), matrix)
            uses = step.get("uses", "")
            w = {k: sub(v) for k, v in step.get("with", {}).items()}
            if uses.startswith("actions/checkout@"):
                copy_source(self.source, where)
            elif uses.startswith("actions/upload-artifact@"):
                paths = [p for p in w["path"].splitlines() if p.strip()]
                files = self.upload(w["name"], where, [p.strip() for p in paths])
                root = os.path.commonpath([os.path.dirname(f) if os.path.isfile(f) else f
                                           for f in files])
                self.keep(w["name"], root, files)
            elif uses.startswith("actions/download-artifact@"):
                dest = os.path.join(where, w.get("path", "."))
                if "name" in w:
                    self.fetch([w["name"]], dest)
                else:
                    names = [n for n in sorted(os.listdir(self.store))
                             if fnmatch.fnmatch(n, w["pattern"])]
                    if w.get("merge-multiple") != "True":
                        raise RecipeError("download-artifact: only merge-multiple: true is known")
                    self.fetch(names, dest)
            elif uses:
                raise RecipeError("step uses '%s', which this test does not know" % uses)
            elif "run" in step:
                rc = self.shell(where, sub(step["run"]), env,
                                sub(step.get("name", step["run"].splitlines()[0])))
                failed = failed or rc
        shutil.rmtree(where)
        return 1 if failed else 0

    # ---- GitLab CI --------------------------------------------------------------

    def gitlab(self, pipeline, only=None, env_over=None):
        results = {}
        stages = pipeline.get("stages", ["build", "test", "deploy"])
        jobs = {k: v for k, v in pipeline.items()
                if isinstance(v, dict) and "script" in v}
        for stage in stages:
            for job, spec in jobs.items():
                if spec.get("stage", "test") != stage or (only and job not in only):
                    continue
                total = int(spec.get("parallel", 1))
                status = 0
                for k in range(1, total + 1):
                    status |= self.gitlab_job(job, spec, pipeline, jobs, k, total, env_over or {})
                results[job] = status
        return results

    def gitlab_job(self, job, spec, pipeline, jobs, index, total, env_over):
        label = job if total == 1 else "%s %d/%d" % (job, index, total)
        print("gitlab: job %s" % label)
        where = self.workspace("gl-" + label)
        copy_source(self.source, where)
        needs = spec.get("needs", [])
        for n in needs:
            for name in sorted(os.listdir(self.store)):
                if name == "gl-" + n or name.startswith("gl-%s-" % n):
                    self.fetch([name], where)
        env = dict(self.env)
        env.update({k: str(v) for k, v in pipeline.get("variables", {}).items()})
        env.update({k: str(v) for k, v in spec.get("variables", {}).items()})
        if total > 1:
            env.update(CI_NODE_INDEX=str(index), CI_NODE_TOTAL=str(total))
        env.update(env_over)
        lines = list(spec.get("before_script", [])) + list(spec["script"])
        script = "set -o pipefail\n" + "\n".join(lines)
        rc = self.shell(where, script, env, "script")
        art = spec.get("artifacts", {})
        if art and (rc == 0 or art.get("when") == "always"):
            files = self.upload(job, where, art.get("paths", []))
            self.keep("gl-%s-%d" % (job, index), where, files)
        shutil.rmtree(where)
        return 1 if rc else 0


def _glob(where, pattern):
    import glob
    return glob.glob(os.path.join(where, pattern))


def _expressions(text, matrix):
    def one(m):
        expr = m.group(1).strip()
        if expr.startswith("matrix.") and expr[7:] in matrix:
            return str(matrix[expr[7:]])
        raise RecipeError("the expression ${{ %s }} is not one this test knows" % expr)
    return re.sub(r"\$\{\{(.*?)\}\}", one, text)


def _needs_order(needs):
    order, seen = [], set()

    def visit(j):
        if j in seen:
            return
        seen.add(j)
        for n in ([needs[j]] if isinstance(needs[j], str) else needs[j]):
            visit(n)
        order.append(j)
    for j in needs:
        visit(j)
    return order


def check(cond, what):
    if not cond:
        raise RecipeError(what)
    print("ok: " + what)


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    source, work = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    doc = open(os.path.join(source, "docs", "CI.md")).read()
    github = yaml_block(doc, "## GitHub Actions")
    gitlab = yaml_block(doc, "## GitLab CI")
    mutant = {"SUT": "mutant:max-dim", "CASES": "3000"}
    try:
        r = Runner(source, os.path.join(work, "github"))
        res = r.github(github)
        check(res == {"build": 0, "shards": 0, "merge": 0},
              "GitHub Actions: build, 4 shards and merge pass on the reference (%s)" % res)
        merged = os.path.join(r.store, "broadcheck-report")
        cert = open(os.path.join(merged, "certificate.md")).read()
        check("## Verdict: CONFORMS" in cert and "Shard:** 1/1" in cert,
              "GitHub Actions: the merged certificate certifies the whole run")
        res = r.github(github, only={"shards", "merge"}, env_over=mutant)
        check(res == {"shards": 0, "merge": 1},
              "GitHub Actions with a planted bug: the shards pass, the merge fails (%s)" % res)
        cert = open(os.path.join(merged, "certificate.md")).read()
        check("## Verdict: DIVERGES" in cert, "GitHub Actions with a planted bug: its reports uploaded")
        # an adapter library from the artifact: run by the installed worker
        adapter = {"SUT": "dist/lib/broadcheck/adapters/libbc_example_adapter.so", "CASES": "3000"}
        res = r.github(github, only={"shards", "merge"}, env_over=adapter)
        cert = open(os.path.join(merged, "certificate.md")).read()
        check(res == {"shards": 0, "merge": 0} and "## Verdict: CONFORMS" in cert,
              "GitHub Actions on an adapter library in dist/: certified (%s)" % res)

        r = Runner(source, os.path.join(work, "gitlab"))
        res = r.gitlab(gitlab)
        check(res == {"build": 0, "shards": 0, "merge": 0},
              "GitLab CI: build, 4 shards and merge pass on the reference (%s)" % res)
        cert = open(os.path.join(r.store, "gl-merge-1", "certificate.md")).read()
        check("## Verdict: CONFORMS" in cert, "GitLab CI: the merged certificate certifies")
        res = r.gitlab(gitlab, only={"shards", "merge"}, env_over=mutant)
        check(res == {"shards": 0, "merge": 1},
              "GitLab CI with a planted bug: the shards pass, the merge fails (%s)" % res)
        cert = open(os.path.join(r.store, "gl-merge-1", "certificate.md")).read()
        check("## Verdict: DIVERGES" in cert, "GitLab CI with a planted bug: its reports kept")
    except (RecipeError, OSError, KeyError) as e:
        print("ci recipes: FAILED: %s" % e, file=sys.stderr)
        return 1
    print("ci recipes: docs/CI.md's GitHub Actions and GitLab CI jobs work as written")
    return 0


if __name__ == "__main__":
    sys.exit(main())
