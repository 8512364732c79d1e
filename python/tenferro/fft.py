"""tenferro.fft: the Array API 2023.12 fft extension (docs/python.md, "FFT") over the C++ ops of
tenferro/ops/fft.hpp (FFTW underneath): fft, ifft, rfft, irfft, hfft, ihfft, fftn, ifftn, rfftn,
irfftn, fftfreq, rfftfreq, fftshift, ifftshift, with the standard's keywords (n=, axis=, norm=,
s=, axes=, d=). Every transform is differentiable and works in traced programs.

    import tenferro as tf
    X = tf.fft.rfft(tf.asarray([1.0, 2.0, 3.0, 4.0]), norm="ortho")

The functions live in the compiled extension (``tenferro._tenferro._fft``); this module
re-exports them.
"""

from . import _tenferro

_impl = _tenferro._fft

__all__ = sorted(name for name in dir(_impl) if not name.startswith("_"))
globals().update({name: getattr(_impl, name) for name in __all__})
