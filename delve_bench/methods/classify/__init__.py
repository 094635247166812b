"""Classification methods (binary and nominal targets; losses Z, Q and L).

* :mod:`.logistic`: logistic-1, linear (multinomial) logistic regression;
* :mod:`.knn`: knn-class-cv-1, k nearest neighbours with k by leave-one-out per loss;
* :mod:`.platt`: Platt's (1999) sigmoid, shared by the SVM and the OFS classifiers;
* :mod:`.ofs`: ofs-loomi-1, ofs-loomi-own-1, ofs-loomi-fixed-1, ofs-loomr-1 (Hong, Chen et
  al. 2014) on the orthogonal forward-selection engine of
  :mod:`delve_bench.methods.basis.orthogonal`;
* :mod:`.rvm`: rvm-class-1, Tipping's (2001) RVM classifier with the Laplace
  approximation and the fast marginal-likelihood updates of
  :mod:`delve_bench.methods.basis.rvm`;
* :mod:`.svm`: svm-class-1, the RBF-kernel SVM (scikit-learn, optional) with Platt
  probabilities.
"""
