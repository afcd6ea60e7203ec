#!/usr/bin/python3
"""Siconos NSGS (fc3d_nsgs) on a frictional contact problem exported by granula.

usage: nsgs_raw.py PROBLEM.raw [--tol 1e-4 1e-6] [--maxiter 20000]

PROBLEM.raw is the `fc3d_raw 1` text file written by
`cargo bench --bench nscd_bench -- --export DIR N`: a header, the
nonzeros of W as `row column value`, then q, mu, and granula's solution r and
u (one number a line). The problem is u = W r + q with r in the Coulomb cone
and De Saxce's complementarity, normal first in each contact's frame.

For each tolerance it prints one RESULT line: NSGS sweeps, solve time (s, one
thread), Siconos' own residual, and the natural-map residual of the returned
impulses recomputed here (|r - proj_K(r - u_hat)| / |q|, u_hat = u + mu |u_t| e_n)
so that both codes are judged by one formula. It also prints that residual for
granula's stored solution.
"""
import argparse
import os
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np
import scipy.sparse as sp
import siconos.numerics as sn


def read(path):
    with open(path) as f:
        if f.readline().split()[0] != "fc3d_raw":
            raise SystemExit("%s: not an fc3d_raw file" % path)
        m, nc, nnz = (int(v) for v in f.readline().split())
        trip = np.loadtxt(f, max_rows=nnz, ndmin=2)
        tail = np.loadtxt(f, ndmin=1)
    w = sp.csc_matrix((trip[:, 2], (trip[:, 0].astype(np.int64), trip[:, 1].astype(np.int64))), shape=(m, m))
    q, mu = tail[:m].copy(), tail[m:m + nc].copy()
    r = tail[m + nc:2 * m + nc].copy() if len(tail) >= 2 * m + nc else None
    return w, q, mu, r


def natural_map(w, q, mu, r):
    """sqrt(sum_a |r_a - proj_K(r_a - u_hat_a)|^2) / |q|, u = W r + q (rho = 1)."""
    u = w @ r + q
    r3, u3 = r.reshape(-1, 3), u.reshape(-1, 3)
    ut = np.hypot(u3[:, 1], u3[:, 2])
    y = r3 - u3
    y[:, 0] -= mu * ut
    yt = np.hypot(y[:, 1], y[:, 2])
    p = y.copy()
    polar = mu * yt <= -y[:, 0]
    p[polar] = 0.0
    side = ~polar & (yt > mu * y[:, 0])
    pn = (mu[side] * yt[side] + y[side, 0]) / (mu[side] ** 2 + 1.0)
    f = np.where(yt[side] > 0, mu[side] * pn / np.where(yt[side] > 0, yt[side], 1.0), 0.0)
    p[side, 0] = pn
    p[side, 1] = y[side, 1] * f
    p[side, 2] = y[side, 2] * f
    return np.sqrt(((r3 - p) ** 2).sum()) / max(np.linalg.norm(q), np.finfo(float).eps)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("problem")
    ap.add_argument("--tol", type=float, nargs="+", default=[1e-4, 1e-6])
    ap.add_argument("--maxiter", type=int, default=20000)
    a = ap.parse_args()
    w, q, mu, r_granula = read(a.problem)
    name = os.path.basename(a.problem)
    nc = len(mu)
    if r_granula is not None:
        print("GRANULA problem=%s contacts=%d natural_map=%.3e" % (name, nc, natural_map(w, q, mu, r_granula)))
    wc = sp.csc_matrix(w)
    wc.indices = wc.indices.astype(np.int64)
    wc.indptr = wc.indptr.astype(np.int64)
    problem = sn.FrictionContactProblem(3, wc, q, mu)
    for tol in a.tol:
        options = sn.SolverOptions(sn.SICONOS_FRICTION_3D_NSGS)
        options.iparam[sn.SICONOS_IPARAM_MAX_ITER] = a.maxiter
        options.dparam[sn.SICONOS_DPARAM_TOL] = tol
        r = np.zeros(3 * nc)
        u = np.zeros(3 * nc)
        t0 = time.perf_counter()
        info = sn.fc3d_nsgs(problem, r, u, options)
        solve = time.perf_counter() - t0
        print("RESULT siconos_nsgs problem=%s contacts=%d tol=%g info=%d sweeps=%d solve_s=%.3f "
              "siconos_residual=%.3e natural_map=%.3e load=%s"
              % (name, nc, tol, info, options.iparam[sn.SICONOS_IPARAM_ITER_DONE], solve,
                 options.dparam[sn.SICONOS_DPARAM_RESIDU], natural_map(w, q, mu, r),
                 os.getloadavg()[0]))
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
