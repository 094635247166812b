"""Sparse basis-function methods: RVM, the SSGE family, ABF, OLS variants, ridge, SVM.

One engine serves them all (docs/methods/basis.md): :mod:`.design` (RBF
dictionaries and scaling), :mod:`.orthogonal` (MGS forward selection with pluggable
score, regularisation and criterion), :mod:`.stopping`, :mod:`.criteria`, :mod:`.ridge`,
:mod:`.evidence` (the rank-one S/Q/R evidence updates shared by SSGE and the fast RVM),
:mod:`.ssge`, :mod:`.rvm`, :mod:`.abf`, :mod:`.widths` (the ABF width stage, computed once
per training set), :mod:`.local_ridge` (ORR's per-centre lambdas by GCV sweeps),
:mod:`.lrols` (LROLS-LOO's evidence lambdas around the selection engine); the DELVE
plugins live in :mod:`.plugins`.
"""
