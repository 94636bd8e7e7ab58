#ifndef PA_DEFAULT_CMYK_PROFILE_H
#define PA_DEFAULT_CMYK_PROFILE_H

// The CMYK ICC profile used for CMYK and YCCK JPEGs that carry no usable one: "Chemical proof"
// by Graeme W. Gill (public domain), the profile libvips uses for the same case, without its
// characterization data (Scripts/default-cmyk-profile/make.sh; licence in LICENSE.txt beside it).
const unsigned char *pa_default_cmyk_profile(void);
unsigned long pa_default_cmyk_profile_size(void);

#endif
