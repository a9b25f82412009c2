"""environment.yml (conda users) installs the same pinned set as pyproject.toml."""

import re
import tomllib

import yaml
from conftest import ROOT


def pins(reqs):
    out = {}
    for r in reqs:
        m = re.fullmatch(r"([A-Za-z0-9_.\-]+)==([^\s;]+)", r.strip())
        if m:
            out[m.group(1).lower().replace("_", "-")] = m.group(2)
    return out


def test_environment_yml_matches_pyproject():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = pins(project["dependencies"])
    for extra in project["optional-dependencies"].values():
        wanted |= pins(extra)
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict) and "pip" in d)
    assert pins(pip) == wanted
    # every dependency is pinned exactly (an unpinned torch pulls GBs of CUDA wheels)
    assert all("==" in r for r in project["dependencies"])
    assert wanted["torch"] == "2.13.0"
