"""Sweeps (Optuna locally, Ray Tune on a cluster), ablations over seeds, and the statistics behind both."""
