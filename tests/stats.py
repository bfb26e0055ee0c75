"""Statistics shared by the tests."""
import math


def chi2_pvalue(stat, df):
    """Upper tail of the chi-square distribution (Wilson-Hilferty approximation)."""
    z = ((stat / df) ** (1 / 3) - (1 - 2 / (9 * df))) / math.sqrt(2 / (9 * df))
    return 0.5 * math.erfc(z / math.sqrt(2))
