"""The compare view: how the bytes of each all_reduce grow with P, and the seed's formulas
beside what this cluster measured."""
