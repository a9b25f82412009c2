"""The CPU kernels pinned in every process, and the build's numerics fingerprint (companion.numerics)."""

import json
import os
import subprocess
import sys

import pytest

from companion import numerics
from companion.settings import ParameterError


def child(code: str, **env) -> dict:
    """Run ``code`` (which prints JSON) in a fresh interpreter with ``env`` on top of a clean pinning."""
    base = {k: v for k, v in os.environ.items() if k not in (*numerics.PINNED, "COMPANION_NUMERICS")}
    out = subprocess.run([sys.executable, "-c", code], env={**base, **env}, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def test_importing_companion_pins_the_kernels_before_torch_runs_any():
    got = child("import companion, json, torch; torch.ones(2) @ torch.ones(2); "
                "print(json.dumps({'env': companion.numerics.in_force(), "
                "'aten': torch.backends.cpu.get_cpu_capability()}))")
    assert got["env"] == numerics.PINNED
    if "avx2" in numerics.cpu_model()["isa"].split():  # the pinned capability is the one ATen dispatched to
        assert got["aten"] == "AVX2"


def test_an_explicit_setting_wins_and_the_modes_are_checked():
    got = child("import companion, json; print(json.dumps(companion.numerics.in_force()))", MKL_CBWR="COMPATIBLE")
    assert got["MKL_CBWR"] == "COMPATIBLE" and got["ATEN_CPU_CAPABILITY"] == "avx2"
    got = child("import companion, json; print(json.dumps(companion.numerics.in_force()))", COMPANION_NUMERICS="native")
    assert got == {k: None for k in numerics.PINNED}
    assert numerics.settings("compatible")["MKL_CBWR"] == "COMPATIBLE"
    with pytest.raises(ParameterError, match="valid COMPANION_NUMERICS"):
        numerics.settings("avx512")


def test_the_fingerprint_hashes_a_fixed_run_and_repeats_it_bit_for_bit():
    fp = numerics.fingerprint()
    assert set(fp["hashes"]) == set(numerics.DTYPES) and all(len(h) == 16 for h in fp["hashes"].values())
    assert fp["pinned"] == numerics.in_force() and fp["cpu"]["model"]
    assert numerics.run_hash("float32") == fp["hashes"]["float32"]  # the same process, the same bits
    assert numerics.run_hash("float32") != numerics.run_hash("float64")
    text = numerics.markdown(fp)
    assert fp["hashes"]["float64"] in text and "Kernels pinned" in text
