"""Compiling the kernels ahead of use: into the package at install, and in the background at
launch.
"""
