import os

import matplotlib
import pytest
import torch

matplotlib.use("Agg")
os.environ.setdefault("PYTHONHASHSEED", "0")


def pytest_configure(config):
    config.addinivalue_line("markers", "jupyterlab: drives JupyterLab in headless Chromium (make browser-lab)")


@pytest.fixture(autouse=True)
def _seed():
    torch.manual_seed(0)
    yield


def f64(x):
    return x.to(torch.float64)
