# SPDX-License-Identifier: MIT
# The bench_smoke test: gip-bench at tiny sizes with one run per row, peers.py --smoke when cv2
# imports, then bench/report over both JSON files. Checks that everything runs and that the JSON
# parses; never looks at the times.
file(MAKE_DIRECTORY ${OUT})
execute_process(COMMAND ${BENCH} --smoke --json ${OUT}/gip.json RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "gip-bench --smoke failed (${rc})")
endif()
if(NOT PYTHON)
  message(STATUS "peers.py and report smoke skipped: no Python 3 interpreter found")
  return()
endif()
set(jsons ${OUT}/gip.json)
execute_process(COMMAND ${PYTHON} -c "import cv2, numpy" RESULT_VARIABLE nocv OUTPUT_QUIET
                ERROR_QUIET)
if(nocv EQUAL 0)
  execute_process(COMMAND ${PYTHON} ${SRC}/peers.py --smoke --peers opencv,numpy --json ${OUT}/peers.json
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "peers.py --smoke failed (${rc})")
  endif()
  list(APPEND jsons ${OUT}/peers.json)
else()
  message(STATUS "peers.py smoke skipped: cv2 (opencv-python-headless) and numpy do not import")
endif()
execute_process(COMMAND ${PYTHON} ${SRC}/report ${jsons} --out ${OUT}/report RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "bench/report failed (${rc})")
endif()
