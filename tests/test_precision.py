"""The training precision (companion.train.precision, issue 37 item 4): a reduced precision enters the cache and
kept-result keys while float32 leaves every existing key as it was, a CPU computes float32 whatever the config
says, and only the eligible runs at the paper profile take the ``COMPANION_PRECISION`` override."""

import dataclasses
from pathlib import Path

import numpy as np
import pytest
import torch

from companion.data.modular import modular_arithmetic
from companion.experiments import groktransfer as gt
from companion.experiments import progress_measures as pm
from companion.models.transformer import Transformer, TransformerConfig
from companion.settings import ParameterError
from companion.store import entries, kept
from companion.train import TrainConfig, precision, train, train_batched
from companion.train.progress_measures import ClassifierTraining

ROOT = Path(__file__).resolve().parents[1]
NAME = "companion.experiments.some.run"


@pytest.fixture()
def no_override(monkeypatch):
    monkeypatch.delenv("COMPANION_PRECISION", raising=False)


# --------------------------------------------------------------------------- keys
def test_float32_leaves_the_description_as_it_was_before_the_field():
    """At its default the precision is not part of the canonical description: the same dict as the config
    without the field (a dataclass of the same name without it), so every key computed before it stands."""
    fields = [(f.name, f.type, dataclasses.field(default=f.default)) for f in dataclasses.fields(TrainConfig)
              if f.name != "precision"]
    before = dataclasses.make_dataclass("TrainConfig", fields, frozen=True)
    described = entries.canonical(TrainConfig())
    assert "precision" not in described
    assert described == entries.canonical(before())
    assert set(described) == {"__class__"} | {f.name for f in dataclasses.fields(TrainConfig)} - {"precision"}
    run = entries.canonical(pm.Run())  # nested: a run's training config too
    assert "precision" not in run["train"] and run["train"] == described | {"steps": 30_000, "n_evals": 40,
                                                                              "loss_dtype": "float32"}


@pytest.mark.parametrize("reduced", ["tf32", "bf16"])
def test_a_reduced_precision_changes_the_cache_key_and_the_kept_key(reduced):
    base = pm.Run()
    other = dataclasses.replace(base, train=dataclasses.replace(base.train, precision=reduced))
    assert entries.canonical(other)["train"]["precision"] == reduced
    assert entries.key(NAME, other, "cuda") != entries.key(NAME, base, "cuda")
    assert kept.kept_key(NAME, other) != kept.kept_key(NAME, base)
    assert kept.filename(NAME, other) != kept.filename(NAME, base)
    assert entries.key(NAME, dataclasses.replace(other, train=base.train), "cuda") == entries.key(NAME, base, "cuda")


def test_every_precision_field_of_the_library_is_left_out_of_the_keys_at_float32():
    for classes in kept._config_classes().values():
        for cls in classes:
            for f in dataclasses.fields(cls):
                if f.name == precision.FIELD:
                    assert f.metadata.get("key") == entries.KEY_OMITS_DEFAULT["key"], cls
                    assert f.default == "float32", cls


def test_the_repositorys_kept_results_keep_their_keys(monkeypatch, isolated, no_override):
    """Every kept paper-scale result's stored configuration, described in today's classes (what re-keying
    does), is the description it was stored with, so it hashes to its stored key; and the paper profile still
    plans the kept results of the chapters whose configs gained a precision: none of them is stale."""
    from companion.pipeline import campaign

    monkeypatch.setenv("COMPANION_RESULTS_DIR", str(ROOT / "results"))
    classes, checked = kept._config_classes(), 0
    for f in sorted((ROOT / "results").glob("*/*/*.npz")):
        meta = kept.read_meta(f)
        try:
            today = kept._migrate(meta["config"], classes, {}, {})
        except KeyError:  # a configuration no class of today holds: stale before the precision existed
            continue
        assert today == meta["config"], f.name
        checked += 1
    assert checked >= 50
    rows = campaign.kept_status(["grokking", "progress_measures", "groktransfer"], "paper")
    assert sum(r["state"] == "current" for r in rows if r["file"].startswith("modular_run-")) >= 25
    assert not [r["file"] for r in rows if r["state"] == "stale"]


# --------------------------------------------------------------------------- a CPU computes float32
def _tiny(k: int = 1):
    data = modular_arithmetic(7, "add", 0.5, 0)
    models = [Transformer(TransformerConfig(7, 16, 2, 32), seed=s) for s in range(k)]
    return models, data


@pytest.mark.parametrize("reduced", ["tf32", "bf16"])
def test_on_a_cpu_a_reduced_precision_changes_nothing_bit_for_bit(reduced):
    cfg = TrainConfig(steps=12, n_evals=4, lr=1e-2)
    settings = precision._backends()
    runs = {}
    for p in ("float32", reduced):
        (model,), data = _tiny()
        runs[p] = train(model, data, dataclasses.replace(cfg, precision=p))
        models, _ = _tiny(2)
        runs[p, "batch"] = train_batched(models, [data, data], dataclasses.replace(cfg, precision=p))
    assert all(np.array_equal(runs["float32"][k], runs[reduced][k]) for k in runs["float32"])
    assert all(np.array_equal(a[k], b[k]) for a, b in zip(runs["float32", "batch"], runs[reduced, "batch"]) for k in a)
    assert precision._backends() == settings  # a CPU scope sets nothing
    with precision.scope(reduced, "cpu"):
        assert precision._backends() == settings and not torch.is_autocast_enabled("cuda")


def test_the_backend_settings_can_be_set_and_restored_here():
    """The fp32_precision attributes exist in this torch and take the values the scope sets (on a CPU build
    too), and setting them back restores the defaults."""
    before = precision._backends()
    try:
        precision._set_backends("tf32", "ieee")
        assert precision._backends() == ("tf32", "ieee")
    finally:
        precision._set_backends(*before)
    assert precision._backends() == before


def test_with_the_scope_turned_off_a_gpu_run_sets_nothing_and_refuses_a_reduced_precision(monkeypatch):
    """COMPANION_PRECISION_SCOPE=0, a GPU window's fallback: on a CUDA device float32 leaves torch's settings as
    they are, and tf32 or bf16 is an error rather than a float32 run under a reduced-precision key."""
    monkeypatch.setenv("COMPANION_PRECISION_SCOPE", "0")
    before = precision._backends()
    with precision.scope("float32", "cuda"):
        assert precision._backends() == before
    for reduced in ("tf32", "bf16"):
        with pytest.raises(RuntimeError, match="COMPANION_PRECISION_SCOPE=0"):
            with precision.scope(reduced, "cuda"):
                pass
    monkeypatch.delenv("COMPANION_PRECISION_SCOPE")
    with precision.scope("float32", "cuda"):  # on: the scope sets IEEE float32 (settable without a GPU)
        assert precision._backends() == ("ieee", "ieee")
    assert precision._backends() == before


# --------------------------------------------------------------------------- choosing it
def test_an_unknown_precision_is_a_clear_error(monkeypatch):
    for make in (lambda: TrainConfig(precision="fp16"), lambda: pm.ImageRun(precision="fp16"),
                 lambda: ClassifierTraining(1, 1, 1e-3, 0.0, 1, 0, precision="fp16"),
                 lambda: gt.TFPAR["paper"].__class__(precision="fp16"),
                 lambda: precision.apply(TrainConfig(), "fp16"), lambda: precision.scope("fp16", "cpu").__enter__()):
        with pytest.raises(ParameterError, match="unknown precision 'fp16'; valid precisions: float32, tf32, bf16"):
            make()
    monkeypatch.setenv("COMPANION_PRECISION", "half")
    with pytest.raises(ParameterError, match="valid precisions: float32, tf32, bf16"):
        pm.config("widths", "paper")


def test_apply_sets_every_precision_field_and_nothing_else():
    widths = pm.CONFIGS["widths"]["paper"]
    tf = precision.apply(widths, "tf32")
    assert tf.base.train.precision == "tf32" and tf.base.train == dataclasses.replace(widths.base.train,
                                                                                       precision="tf32")
    assert dataclasses.replace(tf, base=widths.base) == widths
    ops = pm.CONFIGS["ops"]["cpu"]  # a training config in an optional field too
    assert precision.apply(ops, "bf16").small_p_train.precision == "bf16"
    coverage = pm.CONFIGS["coverage"]["paper"]  # no precision field: the very object back
    assert precision.apply(coverage, "tf32") is coverage
    roles = precision.apply(gt.TF_RUNS["8a"]["add"]["paper"], "tf32")
    assert {r.precision for r in roles.values()} == {"tf32"}


def test_only_eligible_runs_at_the_paper_profile_take_the_override(monkeypatch, no_override):
    plain = {name: pm.config(name, "paper") for name in pm.CONFIGS}
    plain_gt = {name: gt.config(name, "paper") for name in gt.CONFIGS}
    monkeypatch.setenv("COMPANION_PRECISION", "tf32")
    assert pm.config("widths", "paper").base.train.precision == "tf32"
    assert pm.config("fig7", "paper").precision == "tf32"
    assert all(pm.config(n, "paper") == c for n, c in plain.items() if n not in ("widths", "fig7"))
    assert pm.config("widths", "cpu") == pm.CONFIGS["widths"]["cpu"]  # reduced profiles: never
    for name in ("fig8a", "fig13_left"):
        assert {r.precision for r in gt.config(name, "paper").values()} == {"tf32"}
    assert gt.config("fig13_right", "paper").precision == "tf32"
    assert all(gt.config(n, "paper") == c for n, c in plain_gt.items()
               if n not in ("fig8a", "fig13_left", "fig13_right"))
    # the page reads what the registry plans: tf_runs and transformer_results take the same override
    assert gt.tf_runs("paper", "add", "8a") == gt.config("fig8a", "paper")
    assert gt.tf_runs("paper", "mul", "8a") == gt.config("fig13_left", "paper")
    assert gt.tf_runs("paper", "add", "8b") == gt.config("fig8b", "paper")
    # and the page says so: a departure from the paper's setting
    assert "`precision` | float32 | tf32" in pm.departures_table("paper").data
    assert "`precision` | float32 | tf32" in gt.departures_table("paper").data


def test_the_eligible_families_name_registry_entries_and_nothing_is_validated_yet():
    registries = {"groktransfer": gt.CONFIGS, "progress_measures": pm.CONFIGS}
    for family in precision.ELIGIBLE:
        chapter, entry = family.split(".")
        assert entry in registries[chapter], family
    assert precision.VALIDATED == {}


# --------------------------------------------------------------------------- on a GPU
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_gpu_scope_sets_the_backends_and_restores_them():
    before = precision._backends()
    a = torch.randn(1024, 1024, device="cuda")
    b = torch.randn(1024, 1024, device="cuda")
    exact = (a.double() @ b.double())
    errs = {}
    for p, want in (("float32", ("ieee", "ieee")), ("tf32", ("tf32", "tf32")), ("bf16", ("ieee", "ieee"))):
        with precision.scope(p, "cuda"):
            assert precision._backends() == want
            assert torch.is_autocast_enabled("cuda") == (p == "bf16")
            c = a @ b
            assert c.dtype == (torch.bfloat16 if p == "bf16" else torch.float32)
            errs[p] = float((c.double() - exact).abs().max() / exact.abs().max())
        assert precision._backends() == before and not torch.is_autocast_enabled("cuda")
    assert 10 * errs["float32"] < errs["tf32"] < errs["bf16"]  # TF32: 10 mantissa bits; bf16: 7
    x = torch.randn(8, 64, 32, 32, device="cuda")
    w = torch.randn(64, 64, 3, 3, device="cuda")
    ref = torch.nn.functional.conv2d(x.double(), w.double())
    conv = {}
    for p in ("float32", "tf32"):
        with precision.scope(p, "cuda"):
            conv[p] = float((torch.nn.functional.conv2d(x, w).double() - ref).abs().max() / ref.abs().max())
    assert 10 * conv["float32"] < conv["tf32"]  # float32 convolutions are IEEE here, not cuDNN's TF32


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
@pytest.mark.parametrize("p", ["float32", "tf32", "bf16"])
def test_gpu_training_runs_in_each_precision(p):
    """The loop (the captured step where it applies, the batched evaluation) runs in every precision on the
    device, its losses finite, and leaves the settings as they were."""
    before = precision._backends()
    models, data = _tiny(2)
    data = data.to("cuda")
    hs = train_batched([m.to("cuda") for m in models], [data, data], TrainConfig(steps=40, n_evals=4, precision=p))
    assert all(np.isfinite(h["train_loss"]).all() for h in hs)
    assert precision._backends() == before
