"""Benchmark: exact eigenbasis GD (companion.theory.linear_estimators.LinearGD) against a literal
torch ``nn.Linear`` + ``SGD`` loop, d_in = 1000, λ = 0.9, d_out = 1 (paper Fig. 1 setting).

Run: ``COMPANION_THREADS=1 python benchmarks/linear_estimators_eigenbasis.py``. Prints CPU seconds
for setting up (one eigh), for evaluating the losses at every step and at t = 10⁷,
and for 1000 steps of the torch loop, plus the largest relative disagreement of the losses.
"""

import math
import time

import numpy as np
import torch

from companion.theory.linear_estimators import LinearGD

torch.set_num_threads(1)
D_IN, LAM, ETA, STEPS = 1000, 0.9, 0.01, 1000

t0 = time.process_time()
sim = LinearGD.sample(D_IN, 1, LAM, 1, 0, n_gen=10, eta=ETA)
setup = time.process_time() - t0
t0 = time.process_time()
sim_losses = np.array([[v.item() for v in sim.losses(t)] for t in range(STEPS + 1)])
eval_all = time.process_time() - t0
t0 = time.process_time()
sim.losses(10 ** 7)
eval_late = time.process_time() - t0

# the literal loop on the same draws (same generator order as LinearGD.sample)
g = torch.Generator().manual_seed(0)
n = int(round(D_IN / LAM))
X = torch.randn(1, n, D_IN, generator=g, dtype=torch.float64)[0]
torch.randn(1, 10, D_IN, generator=g, dtype=torch.float64)
sd = math.sqrt(1 / (2 * D_IN))
T = torch.randn(1, D_IN, 1, generator=g, dtype=torch.float64)[0] * sd
S0 = torch.randn(1, D_IN, 1, generator=g, dtype=torch.float64)[0] * sd
model = torch.nn.Linear(D_IN, 1, bias=False).double()
with torch.no_grad():
    model.weight.copy_(S0.T)
opt = torch.optim.SGD(model.parameters(), lr=ETA)
y = X @ T
loop = []
t0 = time.process_time()
for _ in range(STEPS + 1):
    loss = torch.nn.functional.mse_loss(model(X), y)
    loop.append(loss.item())
    opt.zero_grad()
    loss.backward()
    opt.step()
loop_time = time.process_time() - t0
err = np.max(np.abs(sim_losses[:, 0] / np.array(loop) - 1))
print(f"eigenbasis: setup {setup:.2f} s CPU, losses at all {STEPS + 1} steps {eval_all:.2f} s, "
      f"one evaluation at t = 1e7 {eval_late * 1e3:.2f} ms")
print(f"torch loop: {STEPS} steps {loop_time:.2f} s CPU ({loop_time / STEPS * 1e3:.2f} ms/step)")
print(f"max relative difference of the train loss over {STEPS} steps: {err:.2e}")
