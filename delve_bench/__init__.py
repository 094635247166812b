"""delve-bench: DELVE (Rasmussen et al., Toronto 1996) revived.

Datasets -> prototasks -> tasks -> task instances, method plugins run on every
instance, per-case losses kept on disk, and the DELVE ANOVA statistics on top.
"""

__version__ = "0.1.0"
