"""Datasets: specs, files, checksums, fetching, generated data and DELVE's default encoding."""

from .load import Dataset, load_dataset, verify_dataset
from .spec import Attribute, DatasetSpec, dataset_names, dataset_spec

__all__ = [
    "Attribute",
    "Dataset",
    "DatasetSpec",
    "dataset_names",
    "dataset_spec",
    "load_dataset",
    "verify_dataset",
]
