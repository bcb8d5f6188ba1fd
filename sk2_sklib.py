from collections import defaultdict
from skidl import Pin, Part, Alias, SchLib, SKIDL, TEMPLATE

from skidl.pin import pin_types

SKIDL_lib_version = '0.0.1'

sk2 = SchLib(tool=SKIDL).add_parts(*[
        Part(**{ 'name':'SRC', 'dest':TEMPLATE, 'tool':SKIDL, 'aliases':Alias({'SRC'}), 'ref_prefix':'J', 'fplist':None, 'footprint':None, 'keywords':None, 'description':'', 'datasheet':None, 'pins':[
            Pin(num='1',name='OUT',func=pin_types.PWROUT)] }),
        Part(**{ 'name':'WS2812B', 'dest':TEMPLATE, 'tool':SKIDL, 'aliases':Alias({'WS2812B'}), 'ref_prefix':'D', 'fplist':None, 'footprint':None, 'keywords':None, 'description':'', 'datasheet':None, 'pins':[
            Pin(num='1',name='VDD',func=pin_types.PWRIN),
            Pin(num='2',name='DOUT',func=pin_types.OUTPUT),
            Pin(num='3',name='VSS',func=pin_types.PWRIN),
            Pin(num='4',name='DIN',func=pin_types.INPUT)] })])