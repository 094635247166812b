"""The multilayer-perceptron family of Rasmussen (1996): the network and its weight layout
(:mod:`.network`), Neal's hierarchical prior (:mod:`.prior`), early-stopping ensembles
``mlp-ese-1`` (:mod:`.ese`, thesis §3.6) and Bayesian learning by hybrid Monte Carlo
``mlp-mc-1`` (:mod:`.mc`, thesis §3.7)."""
