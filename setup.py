"""Builds the extension tenferro._tenferro with CMake for `pip install --no-build-isolation .`.

The build directory is build/pip (override: TENFERRO_PIP_BUILD_DIR); parallel jobs
TENFERRO_BUILD_JOBS (default 1); ccache is used when it is on PATH. Metadata is in pyproject.toml.
"""

import os
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))


class CMakeExtension(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build = os.environ.get("TENFERRO_PIP_BUILD_DIR", os.path.join(ROOT, "build", "pip"))
        configure = [
            "cmake", "-S", ROOT, "-B", build,
            "-DCMAKE_BUILD_TYPE=Release",
            "-DBUILD_TESTING=OFF",
            "-DTENFERRO_BUILD_BENCH=OFF",
            "-DTENFERRO_BUILD_PYTHON=ON",
            f"-DPython3_EXECUTABLE={sys.executable}",
        ]
        if shutil.which("ninja"):
            configure += ["-G", "Ninja"]
        if shutil.which("ccache"):
            configure.append("-DCMAKE_CXX_COMPILER_LAUNCHER=ccache")
        subprocess.check_call(configure)
        jobs = os.environ.get("TENFERRO_BUILD_JOBS", "1")
        subprocess.check_call(["cmake", "--build", build, "--target", "_tenferro", "-j", jobs])
        pkg = os.path.join(build, "python", "tenferro")
        built = [f for f in os.listdir(pkg) if f.startswith("_tenferro") and f.endswith(".so")]
        if len(built) != 1:
            raise RuntimeError(f"tenferro: expected one _tenferro*.so in {pkg}, found {built}")
        dest = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        shutil.copyfile(os.path.join(pkg, built[0]), dest)


setup(ext_modules=[CMakeExtension("tenferro._tenferro")], cmdclass={"build_ext": CMakeBuild},
      zip_safe=False)
