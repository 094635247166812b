"""Published numbers the study displays are set beside (reference data, not results).

* Rasmussen (1996), Fig. 5.2: bagging MARS, r = 100 (L_plain - L_bagged) / L_plain per
  kin/pumadyn prototask and training-set size (the p-value columns of the scanned figure
  are not legible enough to be used).
* Rasmussen (1996), Fig. 5.18: approximate total CPU minutes (training + prediction) per
  method and size on the 1996 machine (200 MHz MIPS R4400).
* Barrio, Romero & Belanche (2009), Table 2 (significant wins per pair over 60 tasks),
  Table 4 (mean number of basis functions at n = 1024) and Table 6 (mean number of added
  plus removed basis functions at n = 1024; re-estimation iterations for the RVM); and for
  part 2, the Hwang tasks with 8192 training cases, Table 3 (significant wins per pair over
  10 tasks) and Table 5 (mean number of basis functions, and of added plus removed ones).
"""

from __future__ import annotations

SIZES = (64, 128, 256, 512, 1024)

THESIS_BAGGING_R = {
    "kin-32fh": (36.4, 27.2, 8.9, 3.7, -3.8),
    "kin-32fm": (26.3, 24.1, 10.8, -8.1, -5.7),
    "kin-32nh": (40.1, 28.7, 23.6, 12.3, 6.8),
    "kin-32nm": (25.8, 28.8, 21.7, 13.0, 6.1),
    "kin-8fh": (37.3, 16.0, 16.8, 13.2, 3.8),
    "kin-8fm": (37.0, 17.0, 13.6, 13.0, 9.8),
    "kin-8nh": (20.7, 17.6, 11.6, 8.3, 9.4),
    "kin-8nm": (31.3, 19.2, 16.0, 11.5, 7.7),
    "pumadyn-32fh": (21.3, 32.7, 11.4, 9.0, 2.6),
    "pumadyn-32fm": (4.3, 24.2, 22.4, 3.8, 3.8),
    "pumadyn-32nh": (25.0, 22.2, 9.3, 10.4, 3.3),
    "pumadyn-32nm": (28.3, -23.9, 22.5, 16.8, 5.3),
    "pumadyn-8fh": (12.9, 3.6, 4.5, 5.5, 3.6),
    "pumadyn-8fm": (20.2, 15.1, 8.4, 4.4, 5.9),
    "pumadyn-8nh": (12.1, 19.0, 10.5, 10.1, 4.0),
    "pumadyn-8nm": (22.7, 30.3, 17.0, 13.0, 7.5),
}
THESIS_BAGGING_AVERAGE = (25.1, 18.9, 14.3, 8.7, 4.3)

#: minutes; None: not run (gp-mc-1 at 1024); "<0.01" printed as 0.005 for the ratio
THESIS_CPU_MINUTES = {
    "lin-1": (0.005, 0.005, 0.005, 0.01, 0.02),
    "knn-cv-1": (0.005, 0.04, 0.15, 1, 6),
    "mars3.6-bag-1": (0.2, 0.3, 0.7, 2, 4),
    "mlp-ese-1": (2, 4, 8, 16, 32),
    "gp-map-1": (0.25, 2, 16, 128, 512),
    "gp-mc-1": (32, 64, 128, 256, None),
    "mlp-mc-1": (32, 64, 128, 256, 512),
}

BARRIO_PROTOTASKS = (
    "pumadyn-8fh",
    "pumadyn-8fm",
    "pumadyn-8nh",
    "pumadyn-8nm",
    "kin-8fh",
    "kin-8fm",
    "kin-8nh",
    "kin-8nm",
    "bank-8fh",
    "bank-8fm",
    "bank-8nh",
    "bank-8nm",
)
BARRIO_LABEL = {
    "ssge-pta10-1": "PTA(1,0)",
    "ssge-pta21-1": "PTA(2,1)",
    "ssge-sffs-1": "SFFS",
    "ssge-oscil5-1": "Oscil(5)",
    "rvm-1": "RVM",
    "abf-1": "ABF",
    "svm-1": "SVM",
    "ols-cv-1": "OLS",
}
BARRIO_ORDER = tuple(BARRIO_LABEL)
#: the tasks Table 2 counts over: 12 prototasks x 5 sizes
BARRIO_TABLE2_TASKS = 60
#: row method R, column method C: tasks on which C was significantly better than R
BARRIO_TABLE2 = {
    "ssge-pta10-1": (None, 0, 0, 10, 3, 10, 6, 0),
    "ssge-pta21-1": (6, None, 1, 5, 2, 11, 6, 0),
    "ssge-sffs-1": (16, 10, None, 14, 4, 14, 13, 0),
    "ssge-oscil5-1": (5, 0, 0, None, 1, 8, 5, 0),
    "rvm-1": (13, 5, 3, 13, None, 17, 7, 0),
    "abf-1": (4, 2, 1, 4, 2, None, 6, 0),
    "svm-1": (6, 3, 1, 7, 2, 6, None, 0),
    "ols-cv-1": (23, 18, 9, 22, 15, 20, 14, None),
}
BARRIO_TABLE4 = {
    "ssge-pta10-1": (39, 80, 59, 68, 48, 71, 120, 264, 204, 52, 86, 221),
    "ssge-pta21-1": (11, 59, 24, 34, 39, 46, 103, 203, 191, 35, 61, 142),
    "ssge-sffs-1": (2.5, 4.5, 8.5, 13, 10, 22, 76, 159, 123, 27, 42, 100),
    "ssge-oscil5-1": (39, 80, 59, 68, 48, 71, 120, 264, 204, 52, 86, 221),
    "rvm-1": (3.5, 6.5, 9.0, 13, 9.2, 24, 90, 185, 130, 32, 43, 115),
    "svm-1": (593, 726, 668, 608, 708, 667, 682, 836, 801, 763, 698, 854),
    "ols-cv-1": (11, 14, 15, 26, 18, 35, 49, 169, 164, 23, 51, 156),
}
BARRIO_TABLE6 = {
    "ssge-pta10-1": (56, 107, 79, 88, 65, 92, 155, 343, 244, 94, 126, 261),
    "ssge-pta21-1": (78, 238, 118, 148, 162, 183, 403, 791, 692, 225, 302, 545),
    "ssge-sffs-1": (132, 344, 190, 361, 330, 381, 2051, 5892, 4216, 874, 1528, 3334),
    "ssge-oscil5-1": (205, 308, 256, 250, 224, 311, 433, 738, 529, 228, 403, 552),
    "rvm-1": (180, 196, 406, 230, 115, 118, 6236, 13753, 302, 106, 7225, 7066),
}
#: Barrio et al.'s verbal ranking of part 1 (best first; ties as printed)
BARRIO_RANKING = (
    "abf-1",
    "ssge-oscil5-1",
    "ssge-pta10-1",
    "ssge-pta21-1",
    "svm-1",
    "rvm-1",
    "ssge-sffs-1",
    "ols-cv-1",
)

#: part 2 (Hwang, §6.2.3): the six methods run there, in the order of Tables 3 and 5
HWANG_ORDER = (
    "ssge-pta10-1",
    "ssge-pta21-1",
    "ssge-sffs-1",
    "ssge-oscil5-1",
    "rvm-1",
    "svm-1",
)
#: the training- (and test-) set size of Tables 3 and 5
HWANG_SIZE = 8192
#: the tasks Table 3 counts over: the five Hwang functions, clean and noisy
BARRIO_TABLE3_TASKS = 10
#: row method R, column method C (HWANG_ORDER): Hwang tasks with 8192 training cases on
#: which C was significantly better than R
BARRIO_TABLE3 = {
    "ssge-pta10-1": (None, 0, 0, 4, 0, 4),
    "ssge-pta21-1": (0, None, 0, 3, 0, 4),
    "ssge-sffs-1": (1, 0, None, 2, 0, 2),
    "ssge-oscil5-1": (1, 0, 0, None, 0, 1),
    "rvm-1": (4, 4, 3, 4, None, 4),
    "svm-1": (1, 1, 2, 4, 0, None),
}
#: Table 5: mean #BF of the final models and mean number of added plus removed BFs
#: (re-estimation iterations for the RVM; none printed for the SVM) at n = 8192
BARRIO_TABLE5 = {
    "n_basis": {
        "ssge-pta10-1": 42.1,
        "ssge-pta21-1": 41.7,
        "ssge-sffs-1": 34.5,
        "ssge-oscil5-1": 42.1,
        "rvm-1": 19.2,
        "svm-1": 3407.0,
    },
    "steps": {
        "ssge-pta10-1": 57.5,
        "ssge-pta21-1": 161.1,
        "ssge-sffs-1": 127.4,
        "ssge-oscil5-1": 247.2,
        "rvm-1": 1234.1,
    },
}
