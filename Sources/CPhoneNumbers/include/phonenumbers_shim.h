#ifndef PHONEAUTH_PHONENUMBERS_SHIM_H
#define PHONEAUTH_PHONENUMBERS_SHIM_H
#ifdef __cplusplus
extern "C" {
#endif

/* Why a number was rejected; PA_PHONE_OK when it parsed and is valid. */
enum pa_phone_reason {
    PA_PHONE_OK = 0,
    PA_PHONE_NOT_A_NUMBER = 1,
    PA_PHONE_INVALID_COUNTRY_CODE = 2,
    PA_PHONE_TOO_SHORT = 3,
    PA_PHONE_TOO_LONG = 4,
    PA_PHONE_INVALID_LENGTH = 5,
    PA_PHONE_NOT_VALID = 6,
};

typedef struct {
    int reason;        /* enum pa_phone_reason */
    char e164[24];     /* "+16505553434" */
    char region[4];    /* CLDR region code, "US"; "ZZ" when unknown */
    int type;          /* libphonenumber's PhoneNumberType of a valid number */
} pa_phone_result;

/* Parses `text` (UTF-8, with a leading + or a number valid in `default_region`), checks it and
   classifies it, in one round of pattern matching.
   Thread-safe: libphonenumber's PhoneNumberUtil is a process-wide immutable singleton. */
void pa_phone_parse(const char *text, const char *default_region, pa_phone_result *out);

/* libphonenumber's own GetNumberType of a number in international form, -1 if it does not parse:
   the reference pa_phone_parse's type is tested against. */
int pa_phone_number_type(const char *text);

/* 1 if `region` is a region code libphonenumber knows (a CLDR code such as "US", or "001" for
   non-geographic numbers), else 0. */
int pa_phone_region_supported(const char *region);

#ifdef __cplusplus
}
#endif
#endif
