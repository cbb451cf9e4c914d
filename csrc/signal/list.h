/* list.h - TFLM's Signal library operators: the custom name TFLM registers each under and
** the registration prefix (pl_<prefix>_registration). Sorted by name. */
#ifndef PL_SIGNAL_LIST_H
#define PL_SIGNAL_LIST_H

#include "picolite/pl_kernel.h"

#define PL_SIGNAL_KERNELS(X) \
    X("SignalDelay", signal_delay) \
    X("SignalEnergy", signal_energy) \
    X("SignalFftAutoScale", signal_fft_auto_scale) \
    X("SignalFilterBank", signal_filter_bank) \
    X("SignalFilterBankLog", signal_filter_bank_log) \
    X("SignalFilterBankSpectralSubtraction", signal_spectral_subtraction) \
    X("SignalFilterBankSquareRoot", signal_filter_bank_square_root) \
    X("SignalFramer", signal_framer) \
    X("SignalIrfft", signal_irfft) \
    X("SignalOverlapAdd", signal_overlap_add) \
    X("SignalPCAN", signal_pcan) \
    X("SignalRfft", signal_rfft) \
    X("SignalStacker", signal_stacker) \
    X("SignalWindow", signal_window)

#define PL_DECLARE_CUSTOM(name, prefix) const pl_registration *pl_##prefix##_registration(void);
PL_SIGNAL_KERNELS(PL_DECLARE_CUSTOM)
#undef PL_DECLARE_CUSTOM

#endif
