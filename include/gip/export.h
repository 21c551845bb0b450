/* SPDX-License-Identifier: MIT */
/* GIP_API: marks the functions libgip exports; everything else is hidden. */
#ifndef GIP_EXPORT_H
#define GIP_EXPORT_H

#if defined(GIP_STATIC)
#define GIP_API
#elif defined(_WIN32)
#ifdef GIP_BUILDING
#define GIP_API __declspec(dllexport)
#else
#define GIP_API __declspec(dllimport)
#endif
#else
#define GIP_API __attribute__((visibility("default")))
#endif

#endif
