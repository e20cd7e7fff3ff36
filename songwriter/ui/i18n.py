"""UI text in English and Chinese: a small table keyed by the English text.

``tr("Generate")`` gives the text in the chosen language. The language is a preference
(View > Language); "" follows the system locale. Strings with fields use str.format after tr.
"""

from __future__ import annotations

LANGUAGES = {"en": "English", "zh": "中文"}
_lang = "en"


def set_language(lang: str) -> None:
    global _lang
    _lang = lang if lang in LANGUAGES else "en"


def language() -> str:
    return _lang


def system_language() -> str:
    try:
        from PySide6.QtCore import QLocale

        return "zh" if QLocale.system().language() == QLocale.Chinese else "en"
    except Exception:
        return "en"


def tr(text: str) -> str:
    if _lang == "zh":
        return ZH.get(text, text)
    return text


ZH: dict[str, str] = {}

ZH.update({
    # menus and actions
    "&File": "文件(&F)", "&Edit": "编辑(&E)", "F&orm": "格律(&O)", "&Generate": "生成(&G)", "&View": "视图(&V)",
    "&Language": "语言(&L)", "&Help": "帮助(&H)", "Main": "主工具栏",
    "&Undo": "撤销(&U)", "&Redo": "重做(&R)", "&Rhyme Label": "韵脚标记(&R)", "&Tone / Stress": "平仄 / 轻重(&T)",
    "&Punctuation": "标点(&P)", "Open &Recent": "最近打开(&R)", "No rhyme": "不押韵", "Any": "不限", "None": "无",
    "平 (level)": "平", "仄 (oblique)": "仄", "/ stressed": "/ 重读", "˘ unstressed": "˘ 轻读",
    "&New": "新建(&N)", "Start a new piece": "开始一首新作品", "&Open…": "打开(&O)…", "Open a .song project": "打开 .song 项目",
    "&Save": "保存(&S)", "Save the project": "保存项目", "Save &As…": "另存为(&A)…",
    "Save the project under another name": "以新文件名保存项目",
    "Import &Lyrics…": "导入歌词(&L)…", "Make the form from a song's lyrics, to write new words to its tune":
        "从一首歌的歌词生成格律，按原曲填新词",
    "Import L&RC…": "导入 L&RC…", "Make the form from an LRC file, keeping its timestamps": "从 LRC 文件生成格律，保留时间轴",
    "&Paste Lyrics as Form…": "粘贴歌词作为格律(&P)…", "Paste a song's lyrics (or LRC) to make the form": "粘贴歌词（或 LRC）生成格律",
    "&Export…": "导出(&E)…", "Export as text, Markdown, PDF, PNG card, LRC or JSON": "导出为文本、Markdown、PDF、PNG 诗卡、LRC 或 JSON",
    "&Quit": "退出(&Q)", "Quit Songwriter": "退出 Songwriter",
    "&Lock / Unlock": "锁定 / 解锁(&L)",
    "Lock the selected characters or words so generation keeps them (or unlock them)": "锁定所选的字或词，生成时保留（或解锁）",
    "Lock / Unlock Whole &Line": "锁定 / 解锁整行(&L)", "Lock or unlock every word of the selected lines": "锁定或解锁所选行的全部文字",
    "Lock All Written Text": "锁定所有已写文字", "Lock everything written so far": "锁定目前写下的全部文字",
    "Unlock Everything": "全部解锁", "Remove every lock": "取消所有锁定",
    "&Edit Line as Text": "以文本编辑本行(&E)", "Type the whole line as text": "把整行当作文本输入",
    "&Clear Unlocked Text": "清除未锁定文字(&C)", "Erase everything that is not locked": "擦除所有未锁定的文字",
    "Generate": "生成", "Fill every unlocked slot; candidates appear in the Candidates panel": "填满所有未锁定的位置；候选出现在“候选”面板",
    "&Regenerate Selected Lines": "重写所选行(&R)", "Write the selected lines again; the others stay as they are": "重新生成所选行，其余各行不变",
    "&Cancel Generation": "取消生成(&C)", "Stop the running generation": "停止正在进行的生成",
    "&Next Candidate": "下一个候选(&N)", "Preview the next candidate": "预览下一个候选",
    "&Previous Candidate": "上一个候选(&P)", "Preview the previous candidate": "预览上一个候选",
    "&Apply Candidate": "采用候选(&A)", "Use the previewed candidate": "采用正在预览的候选",
    "Suggest &Words": "推荐字词(&W)", "Words that fit the selected slot": "适合所选位置的字词",
    "Insert Line &Above": "在上方插入行(&A)", "Add a line to the form above this one": "在本行上方为格律增加一行",
    "Insert Line &Below": "在下方插入行(&B)", "Add a line to the form below this one": "在本行下方为格律增加一行",
    "Re&move Line": "删除行(&M)", "Remove this line from the form": "从格律中删除本行",
    "Line Len&gth…": "行长(&G)…", "Set how many syllables this line has": "设置本行的字数（音节数）",
    "&Preferences…": "首选项(&P)…", "Generation settings, autosave, model": "生成设置、自动保存、模型",
    "&About Songwriter": "关于 Songwriter(&A)", "Version, engine and licences": "版本、引擎与许可",
    # panels
    "Form": "格律", "Candidates": "候选", "Rhymes and Words": "韵与词", "Steering": "内容引导", "Original Song": "原曲",
    "History": "历史", "Title": "标题", "Cancel": "取消",
    "Search forms: 七律, 浣溪沙, sonnet…": "搜索格律：七律、浣溪沙、sonnet…", "Use Form": "使用此格律",
    "Replace the form with the selected one (your text is kept; undo brings the old form back)": "换成所选格律（文字保留；撤销可恢复原格律）",
    "From a Song…": "从歌曲…", "Make the form from a song's lyrics or LRC file, to write new words to its tune": "从歌词或 LRC 文件生成格律，按原曲填新词",
    "Modern (普通话)": "今音（普通话）", "Classical (平水, 入声 is 仄)": "古音（平水，入声为仄）", "Tones": "声调",
    "Rhyme system": "韵书", "Rhyme scheme": "韵式", "Default for the form": "按体裁默认",
    "Perfect rhyme": "完全押韵 (perfect)", "Slant rhyme": "近似押韵 (slant)",
    "Kind": "体裁", "Shi (classical verse)": "诗", "Ci (lyric to a tune)": "词", "Qu (Yuan song)": "曲",
    "Song lyric": "歌词", "Poem": "新诗·诗歌", "Hymn": "赞美诗",
    "The kind of piece is the register the engine writes in: a poem, a song lyric or a hymn "
    "(a hymn metre's words, or a hymn tune's new ones).":
        "体裁决定引擎写作的语体：诗、歌词或赞美诗（按赞美诗格律写词，或为赞美诗曲调填新词）。",
    "The kind of piece picks the default rhyme book and the register the engine writes in: "
    "classical Chinese for shi, ci and qu, modern Chinese for song lyrics and poems.":
        "体裁决定默认韵书和引擎写作的语体：诗、词、曲用文言，歌词和新诗用现代汉语。",
    "One letter per line: lines with the same letter rhyme; - for no rhyme. Spaces between stanzas are ignored. Enter applies.":
        "每行一个字母：字母相同的行押同一韵；- 表示不押韵。段间空格忽略。回车应用。",
    "Form notation (one line per line: _ free, - 平, | 仄, x/ stress, a character locks it, @A rhyme):":
        "格律记法（每行一句：_ 不限，- 平，| 仄，x/ 轻重，写汉字即锁定，@A 韵脚）：",
    "Apply Notation": "应用记法", "Revert": "还原", "The 词牌 library could not be read: {e}": "无法读取词牌库：{e}",
    "Generate (Ctrl+G) to get candidates. Select one to preview it; Enter or double-click applies it.":
        "生成（Ctrl+G）得到候选。选中即预览；回车或双击采用。",
    "Apply": "采用", "Stop Preview": "停止预览", "line {n}": "第 {n} 行", "score": "得分", "{n} problem(s)": "{n} 处问题",
    "Add": "添加", "Strength": "强度",
    "No original song. Import lyrics or an LRC file (File menu) to write new words to an existing tune; the original stays here and beside each line.":
        "没有原曲。导入歌词或 LRC 文件（文件菜单）即可按原曲填新词；原词显示在这里和每行旁边。",
    "Lyrics": "歌词", "pasted": "粘贴", "lyrics": "歌词",
    "Restore This Version": "恢复此版本", "generate": "生成", "save": "保存", "candidate": "候选",
    "Select a slot in the editor to see words that fit it.": "在编辑区选中一个位置，这里显示适合的字词。",
    # editor
    "Click to lock or unlock the whole line (Ctrl+Shift+L)": "点击锁定或解锁整行（Ctrl+Shift+L）",
    "Rhyme {label}": "韵 {label}", "rhymes with line(s) {lines}": "与第 {lines} 行押韵",
    "Line {n}: {syl} syllables": "第 {n} 行：{syl} 字", "Line {n}": "第 {n} 行", "Line {n}: {problem}": "第 {n} 行：{problem}", "rhyme {label}": "韵 {label}", "Not written yet": "尚未填写",
    "{n} empty slot(s)": "{n} 个空位", " (syllable {n})": "（第 {n} 字）", "fits the form": "合律",
    "Beyond the end of the line: the form has {n} syllables here": "超出行尾：格律此行只有 {n} 字",
    "Slot {n}": "第 {n} 字", "any tone": "平仄不限", "Syllable {n} (empty)": "第 {n} 音节（空）",
    "{word}: {n} syllable(s)": "{word}：{n} 个音节", "metre": "格律",
    "locked (Ctrl+L or Ctrl+click to unlock)": "已锁定（Ctrl+L 或 Ctrl+单击解锁）",
    "Type Chinese characters here (with an input method), or press Enter to edit the line as text":
        "请在此用输入法输入汉字，或按回车以文本方式编辑本行",
    "Type the line; Enter to keep, Esc to cancel": "输入整行；回车确认，Esc 取消",
    # window
    "Custom form": "自定格律", "{n} lines": "{n} 行", "{n} syllables": "{n} 个音节", "{n} characters": "{n} 字",
    "{n} line(s)": "{n} 行", "{n} syllable(s)": "{n} 个音节", "{n} character(s)": "{n} 字", "{n} locked": "{n} 处锁定",
    "Untitled": "未命名", "Change title": "修改标题", "checks unavailable": "无法检查",
    "{ok}/{n} lines fit": "{ok}/{n} 行合律", "{n} with problems": "{n} 行有问题",
    "No free slot here: every slot from the cursor on is locked": "这里没有空位：光标之后的位置都已锁定",
    "Typing": "输入", "That character is locked (Ctrl+L unlocks it)": "该字已锁定（Ctrl+L 解锁）", "Erase": "删除",
    "That word is locked (Ctrl+L unlocks it)": "该词已锁定（Ctrl+L 解锁）", "Paste": "粘贴", "Edit line {n}": "编辑第 {n} 行",
    "Insert word": "插入字词", "Nothing written there to lock: write a character or word first": "这里没有文字可锁定：请先写字",
    "Unlock": "解锁", "Unlocked {n}": "已解锁 {n} 处", "Lock": "锁定", "Locked {n}: generation keeps it": "已锁定 {n} 处：生成时保留",
    "Unlock line": "解锁整行", "Nothing written on this line to lock": "本行没有文字可锁定", "Lock line": "锁定整行",
    "Lock all": "全部锁定", "Unlock all": "全部解锁", "Clear unlocked text": "清除未锁定文字",
    "Set rhyme": "设置韵脚", "Set refrain": "设置叠句", "Re&frain": "叠句(&F)", "Not a refrain": "不是叠句",
    "Repeats line {n}": "重复第 {n} 行", "Set tone": "设置平仄", "Set punctuation": "设置标点", "Insert line": "插入行",
    "Remove line": "删除行", "Line length": "行长", "Syllables in line {n}:": "第 {n} 行的字数：",
    "Unknown form": "未知格律", "Use form {name}": "使用格律 {name}", "Form: {name}": "格律：{name}", "Edit form": "编辑格律",
    "Tone system": "声调系统", "Kind of piece": "体裁",
    "The rhyme scheme needs one letter (or -) for each of the {n} lines": "韵式需要为 {n} 行各写一个字母（或 -）",
    "Content": "内容",
    "A generation is already running (Cancel stops it)": "已有生成在进行（可取消）", "Loading the engine…": "正在加载引擎…",
    "Generating {n} candidates…": "正在生成 {n} 个候选…", "{s:.1f} s per generation": "每次生成 {s:.1f} 秒",
    "The engine returned no candidates": "引擎没有返回候选", "Regenerate line {n}": "重写第 {n} 行",
    "{n} candidates in {s:.1f} s; the best is in the editor (Alt+Up/Down to preview others)":
        "{s:.1f} 秒生成 {n} 个候选；最佳的已填入（Alt+上/下 预览其他）",
    "The form changed while generating: the candidates are listed, none was applied": "生成期间格律有变：候选已列出，但未自动采用",
    "Generation cancelled": "已取消生成", "Cannot generate": "无法生成", "Generation failed": "生成失败",
    "The engine is not available": "引擎不可用",
    "Songwriter still works as an editor: write, lock, check and export as usual.": "Songwriter 仍可作为编辑器使用：照常写作、锁定、检查和导出。",
    "Cancelling…": "正在取消…", "Engine: {backend}": "引擎：{backend}", "Model: {path}": "模型：{path}",
    "the default model": "默认模型", "Engine: loading…": "引擎：加载中…", "Engine unavailable": "引擎不可用",
    "Songwriter still works as an editor.": "Songwriter 仍可作为编辑器使用。", "Engine: not loaded": "引擎：未加载",
    "The engine loads in the background when you first generate.": "第一次生成时引擎会在后台加载。",
    "Previewing candidate {n}: Enter or Apply uses it, Esc stops the preview": "正在预览候选 {n}：回车或“采用”使用它，Esc 停止预览",
    "Apply candidate {n}": "采用候选 {n}", "Restore version": "恢复版本",
    "Line {n}, slot {k}": "第 {n} 行第 {k} 字", "tone {t}": "声调 {t}", "stressed": "重读", "unstressed": "轻读",
    "{n} syllable(s) left in the line": "本行还剩 {n} 个音节", "Asking the engine…": "正在询问引擎…",
    "The engine is not available, so these are not ranked.": "引擎不可用，以下未排序。",
    "The engine is loading; the ranked list follows.": "引擎加载中，稍后给出排序。",
    "Not ranked yet: the engine loads when you generate or press Ctrl+Space.": "尚未排序：生成或按 Ctrl+Space 时加载引擎。",
    "No rhyme-table words for this slot.": "韵表中没有适合此位置的字。",
    "Ranked by the engine; double-click or Enter puts a word in.": "按引擎打分排序；双击或回车填入。",
    "No word fits this slot.": "没有适合此位置的字词。",
    "This word is locked: unlock it (Ctrl+L) to see words for it.": "这个词已锁定：解锁（Ctrl+L）后可查看适合的词。", "The engine could not suggest: {e}": "引擎无法推荐：{e}",
    "Open project": "打开项目", "Cannot open the project": "无法打开项目", "Opened {name}": "已打开 {name}",
    "Save project": "保存项目", "Cannot save": "无法保存", "{path} could not be written: {e}": "无法写入 {path}：{e}",
    "Saved {name}": "已保存 {name}", "(none)": "（无）", "Clear Recent": "清除最近记录",
    "Import lyrics": "导入歌词", "Import LRC": "导入 LRC", "Cannot import": "无法导入", "Lyrics to re-lyric": "要填新词的歌词",
    "Paste the song's lyrics (one sung line per line) or an LRC file:": "粘贴歌词（每行一句）或 LRC 文件：",
    "Tune of {name}": "{name} 曲", "Imported song": "导入的歌曲", "Import {name}": "导入 {name}",
    "Form made from the song: {n} line(s). The original is beside each line and in the Original Song panel.":
        "已从歌曲生成格律：{n} 行。原词显示在每行旁边和“原曲”面板中。",
    "Export": "导出", "Cannot export": "无法导出", "Exported {name}": "已导出 {name}",
    "Autosave failed: {e}": "自动保存失败：{e}", "an untitled piece": "未命名作品",
    "Recovered unsaved work on {name}: save it to keep it": "已恢复 {name} 未保存的内容：请保存以保留",
    "About Songwriter": "关于 Songwriter", "Songwriter {v}: write lyrics and poems to a form.": "Songwriter {v}：按格律写歌词与诗词。",
    "Chinese font: Noto Sans CJK SC (subset), SIL Open Font License 1.1.": "中文字体：Noto Sans CJK SC（子集），SIL 开放字体许可 1.1。",
    "Rare characters: Hanazono Mincho (subset), GlyphWiki Project, Hanazono Font License.":
        "生僻字：花园明朝（Hanazono Mincho，子集），GlyphWiki 项目，Hanazono 字体许可。",
    "Unsaved changes": "未保存的更改", "Save the changes to {name}?": "保存对 {name} 的更改吗？",
    "Recover unsaved work": "恢复未保存的内容",
    "Songwriter did not close normally. Unsaved work on {name} from {when} was kept.": "Songwriter 上次没有正常关闭。{when} 时 {name} 未保存的内容已保留。",
    "Recover": "恢复", "Discard": "丢弃", "Later": "以后再说",
    # preferences
    "Preferences": "首选项", "Candidates per generation": "每次生成的候选数", "Temperature": "温度", "Top-k (0 = off)": "Top-k（0 为不限）",
    "Top-p": "Top-p", "random": "随机", "Seed (blank = random)": "随机种子（空为随机）", "Autosave every": "自动保存间隔",
    "Browse…": "浏览…", "Model folder": "模型文件夹", "Backend": "后端", "System": "跟随系统", "Language (next start)": "界面语言（下次启动生效）",
    # file dialogs and export formats
    "Songwriter project (*.song)": "Songwriter 项目 (*.song)", "Lyrics (*.txt *.lrc *.text);;All files (*)": "歌词 (*.txt *.lrc *.text);;所有文件 (*)",
    "LRC lyrics (*.lrc);;All files (*)": "LRC 歌词 (*.lrc);;所有文件 (*)",
    "Plain text": "纯文本", "Markdown": "Markdown", "PDF page": "PDF 页面", "PNG poem card": "PNG 诗卡",
    "LRC lyrics with the original timestamps": "LRC 歌词（原曲时间轴）", "JSON (text, lines, checks, template)": "JSON（文本、各行、检查、格律）",
    "Legend": "图例",
    "○ 平 level · ● 仄 oblique · amber = locked · Ctrl+L lock · Enter edit line · Ctrl+G generate":
        "○ 平 · ● 仄 · 琥珀色 = 已锁定 · Ctrl+L 锁定 · 回车编辑整行 · Ctrl+G 生成",
    "˘ unstressed · / stressed · dots = syllables · amber = locked · Ctrl+L lock · type to edit · Ctrl+G generate":
        "˘ 轻 · / 重 · 圆点 = 音节数 · 琥珀色 = 已锁定 · Ctrl+L 锁定 · 直接输入编辑 · Ctrl+G 生成",
    "amber = locked": "琥珀色 = 已锁定", "amber fill = locked": "琥珀底色 = 已锁定", "dashed amber frame = a weak fit to the tune": "琥珀虚线框 = 与旋律配合较弱",
    "red frame 倒 = the tone sung against the tune": "红框“倒” = 倒字（字调与旋律相反）",
    "red frame = a stress sung against the beat": "红框 = 重音与节拍相反",
})

# the session's notes, the Help menu, the candidates and the checks' wording
ZH.update({
    "&Keyboard Shortcuts": "键盘快捷键(&K)", "&Models and Credits": "模型与数据致谢(&M)", "&User Guide": "用户指南(&U)",
    "Form &Notation": "格律记法(&N)", "Form Notation": "格律记法", "Keyboard Shortcuts": "键盘快捷键",
    "Models and Credits": "模型与数据致谢", "User Guide": "用户指南", "Models": "模型", "Data credits": "数据致谢",
    "writes": "可写", "Trained on": "训练数据", "(not stated)": "（未说明）", "No model is installed.": "未安装模型。",
    "Chinese": "中文", "English": "英文",
    "Every key the window knows": "窗口的全部快捷键", "How to write a form as text": "如何用文字写出格律",
    "How to write with Songwriter": "如何用 Songwriter 写作",
    "The models, what they were trained on, and the credits the data asks for": "模型、其训练数据，以及数据要求的署名",
    "This page could not be read: {e}": "无法读取此页：{e}",
    "This page is in English only: it has no Chinese version yet.": "本页只有英文版，暂时还没有中文版。",
    "Help ▸ Models and Credits names the training data and its licences.": "“帮助 ▸ 模型与数据致谢”列出训练数据及其许可。",
    "Edit the line as text": "以文字编辑整行", "Lock or unlock a character or word": "锁定或解锁一个字或词",
    "Select slots": "选择字格", "Stop previewing a candidate": "停止预览候选",
    "Undo the last change": "撤销上一步修改", "Redo the change undone last": "重做刚撤销的修改",
    "Variety (top-k)": "多样性（top-k）", "Boldness (top-p)": "大胆程度（top-p）",
    "Higher writes more surprising words; lower keeps to the likeliest (and most generic).":
        "越高用词越出人意料；越低越守着最常见（也最平淡）的字词。",
    "How many of the likeliest words each slot chooses among: more gives more varied candidates; 0 means no limit.":
        "每个字格从最可能的多少个字词中挑选：越多，候选越多样；0 表示不限。",
    "How far down the list of likely words a slot may reach: 1.0 allows bold choices, 0.8 stays with safe ones.":
        "每个字格可以在可能字词的名单里往下取多远：1.0 允许大胆的选择，0.8 只取稳妥的。",
    "Drafts per line": "每行草稿数",
    "Each line is written this many times and the likeliest draft kept: more reads more smoothly and takes longer; "
    "1 keeps the first draft.": "每行写这么多遍，留下最可能的一稿：越多读来越顺，也越慢；1 表示只写一稿。",
    "Lock Line": "锁定整行", "Regenerate Lines": "重写选中行",
    "Candidate {n} is in the editor": "候选 {n} 已放入编辑区",
    "Candidate {n} was written for another form ({form}): use that form to apply it":
        "候选 {n} 是为另一格律（{form}）写的：换回该格律才能采用",
    "Candidate {n} was written for another form ({form}): use that form to see it in the editor":
        "候选 {n} 是为另一格律（{form}）写的：换回该格律才能在编辑区预览",
    "for another form: {name}": "属另一格律：{name}",
    "{name} (changed)": "{name}（已改动）",
    "for this form before it was changed: {how}": "属改动前的本格律：{how}",
    "for another version of this form: {how}": "属本格律的另一版本：{how}",
    "for another version of this form": "属本格律的另一版本",
    "other line lengths": "句子长短不同", "rhyme scheme {scheme}": "韵式 {scheme}", "other tones": "平仄不同",
    "other stresses": "轻重不同", "other punctuation": "标点不同",
    "Candidate {n} was written {what}. Change the form back to see it in the editor":
        "候选 {n} {what}。把格律改回去才能在编辑区预览",
    "Candidate {n} was written {what}. Change the form back to apply it": "候选 {n} {what}。把格律改回去才能采用",
    "Choose where to save the project": "请选择保存项目的位置",
    "Undone: {what}": "已撤销：{what}", "Redone: {what}": "已重做：{what}", "Rhyme scheme: {scheme}": "韵式：{scheme}",
    "The form is the notation's now: {n} lines": "格律已按记法改好：{n} 行",
    "Form: {name}. Not everything fits: {what}. Undo brings it all back": "格律：{name}。有些放不下：{what}。撤销可全部找回",
    "line {lines} lost its last character": "第 {lines} 行末尾 1 个字已删去",
    "line {lines} lost its last {n} characters": "第 {lines} 行末尾 {n} 个字已删去",
    "lines {lines} each lost their last character": "第 {lines} 行末尾各有 1 个字已删去",
    "lines {lines} each lost their last {n} characters": "第 {lines} 行末尾各有 {n} 个字已删去",
    "{n} characters past the line ends were cut": "行尾之外的 {n} 个字已删去",
    "line {lines} has no place in it and was left out": "第 {lines} 行在新格律里没有位置，已略去",
    "lines {lines} have no place in it and were left out": "第 {lines} 行在新格律里没有位置，已略去",
    "a word runs past the end of line {lines} (in red)": "第 {lines} 行有 1 个词超出行尾（红色）",
    "{n} words run past the end of line {lines} (in red)": "第 {lines} 行有 {n} 个词超出行尾（红色）",
    "{n} words run past the ends of lines {lines} (in red)": "第 {lines} 行共有 {n} 个词超出行尾（红色）",
    "a lock was dropped": "1 处锁定已去掉", "{n} locks were dropped": "{n} 处锁定已去掉",
    "Form: {name}. It is in another language, so the text starts afresh (Undo brings it back)":
        "格律：{name}。它是另一种语言，正文从头开始（撤销可找回）",
    "Form: {name}. Your text and its lock are kept": "格律：{name}。正文和 1 处锁定都保留了",
    "Form: {name}. Your text and its {n} locks are kept": "格律：{name}。正文和 {n} 处锁定都保留了",
    "Form: {name}. Your text is kept": "格律：{name}。正文保留了",
    "No model for this language: these are not ranked.": "没有这种语言的模型：以下未经排序。",
    "No model writes {lang} yet: Generate works on {have} forms": "还没有写{lang}的模型：生成只适用于{have}格律",
    "Previewing candidate {n}": "正在预览候选 {n}",
    "Rated among the candidates of its generation by the model's confidence (mean log-probability per syllable {s:.2f}; higher is likelier)":
        "按模型的把握在同一次生成的候选中评级（每字平均对数概率 {s:.2f}；越高越可能）",
    "Songwriter found unsaved work it cannot open: {error}\n\nThe file was kept as {path}.":
        "Songwriter 找到无法打开的未保存内容：{error}\n\n该文件已保留为 {path}。",
    "Unsaved work could not be read": "未保存的内容无法读取",
    "The form's default": "按体裁默认", "{name} (default)": "{name}（默认）",
    "{n} candidates; the best is in the editor (Alt+Up/Down to preview others)":
        "{n} 个候选；最好的已在编辑区（Alt+上/下 预览其他）",
    "does not rhyme with line(s) {lines} (rhyme {label}, {system})": "与第 {lines} 行不押韵（韵 {label}，{system}）",
    "the rhyme of {ch} is unknown": "{ch} 的韵部不明",
    "{n} characters, the form wants {want}": "{n} 字，格律要求 {want} 字",
    "{n} syllables, the form wants {want}": "{n} 个音节，格律要求 {want} 个",
    "punctuation {got}, the form wants {want}": "标点为 {got}，格律要求 {want}",
    "{ch} is {has}, the form wants {want}": "{ch} 是{has}声，格律要求{want}",
    "{ch} where {lock} is locked": "{ch} 处锁定的是 {lock}",
    "{ch} is not a Chinese character": "{ch} 不是汉字",
    "the line is missing": "缺少这一行", "the form has no such line": "格律没有这一行",
    "length": "字数", "punctuation": "标点", "rhyme": "押韵", "tone": "平仄", "lock": "锁定",
    "A refrain: it repeats the words of line {n}": "叠句：重复第 {n} 行的词句", "repeats line {n}": "重复第 {n} 行",
    "missing line": "缺行", "extra line": "多余的行", "unknown character": "未知字符", "refrain": "叠句",
    "the line repeats line {n}, which reads {text}": "此行重复第 {n} 行，应为 {text}",
    "punctuation {got} after the locked word {word}, the form wants {want}": "锁定的词 {word} 后的标点是 {got}，格律要求 {want}",
    "{ch} is {got}; {rule}": "{ch} 是{got}声；{rule}",
    "the locked words ({words}) are not where the form has them": "锁定的词（{words}）不在格律给它们的位置上",
    "the stresses do not fit {pattern}": "轻重不合 {pattern}", "{n} lines, the form has {want}": "{n} 行，格律有 {want} 行",
    "{mark} after character {n}": "第 {n} 字后“{mark}”",
    "平平仄平仄 (七言 仄仄平平仄平仄) keeps its first 平": "平平仄平仄（七言 仄仄平平仄平仄）须保留第一个平",
    "拗: 仄 at the fourth character of 仄仄平平仄 needs 平 at the third character of the next line (对句相救)":
        "拗：仄仄平平仄的第四字用了仄，须对句第三字用平相救（对句相救）",
    "拗: 仄 at the sixth character of 平平仄仄平平仄 needs 平 at the fifth character of the next line (对句相救)":
        "拗：平平仄仄平平仄的第六字用了仄，须对句第五字用平相救（对句相救）",
    "孤平: the line keeps only one 平 besides its rhyme; make this 平, or the next-but-one 平":
        "孤平：除韵脚外本句只剩一个平声；把这个字或隔一字的字改为平",
    "三平尾: the line would end in three 平": "三平尾：句末会连用三个平声",
    "the line must end {want}": "句末须用{want}",
    "二四六分明: character {i} of a {n}-character 律句 is fixed": "二四六分明：{n} 言律句的第 {i} 字平仄固定",
    "the 律句 {full} wants {want} here": "律句 {full} 此处要求{want}",
    "perfect rhyme": "完全韵", "slant rhyme": "近似韵", "Classical (入声 仄)": "古音（入声为仄）",
    "Ranked by the engine": "由引擎排序",
})

# The forms' descriptions (ui/wording.py form_description)
ZH.update({
    "词牌, {lines} lines, {chars} characters ({lengths}); {n} examples": "词牌，{lines} 句，{chars} 字（{lengths}），语料 {n} 首",
    "古绝 (old-style quatrain): four lines of {n}, the even lines rhyme, no tone rules":
        "古绝：四句，每句 {n} 字，偶句押韵，不拘平仄",
    "couplet: two seven-character lines, 仄 then 平 ending": "对联：上下联各七字，上联仄收，下联平收",
    "couplet: two five-character lines": "对联：上下联各五字",
    "{n} lines of iambic pentameter, {scheme}": "{n} 行，抑扬格五音步，韵式 {scheme}",
    "{n} lines, iambic tetrameter and trimeter alternating, {scheme}": "{n} 行，抑扬格四音步与三音步交替，韵式 {scheme}",
    "{n} lines, anapestic, {scheme}": "{n} 行，抑抑扬格，韵式 {scheme}",
    "hymn metre {metre}, {foot}, rhymed ABAB or xAxA": "赞美诗格律 {metre}，{foot}，韵式 ABAB 或 xAxA",
    "hymn metre {metre}, {foot}, AABB": "赞美诗格律 {metre}，{foot}，韵式 AABB",
    "iambic": "抑扬格", "trochaic": "扬抑格", "dactylic": "扬抑抑格", "anapestic": "抑抑扬格",
})

# A model per language; the English word list without a model (ui/engines.py, ui/suggesting.py)
ZH.update({
    "No {lang} model is installed, so Generate cannot write this form. To generate, {instead}or install the "
    "{lang} model in {folder} (or choose its folder in Preferences).":
        "没有安装{lang}模型，所以无法为这个格律生成。要生成，可以{instead}或把{lang}模型装到 {folder}"
        "（或在首选项中选择它的文件夹）。",
    "choose a {lang} form ({forms})": "改选一个{lang}格律（{forms}）",
    "No {lang} model": "没有{lang}模型",
    "Not ranked in context: no {lang} model is installed.": "未按上下文排序：没有安装{lang}模型。",
    "Finding the words that fit…": "正在查找合适的词…",
    "The word list could not be read: {e}": "无法读取词表：{e}",
    "From CMUdict: rhymes first, then the commonest.": "来自发音词典 CMUdict：押韵的在前，其次按常用程度。",
    "No word in the dictionary fits this slot.": "词典中没有适合这个位置的词。",
    "{n} syllables": "{n} 个音节", ", ": "，", "; ": "；",
    "Line {n}, syllable {k}": "第 {n} 行第 {k} 个音节", "Form Notation": "格律记法", "Show or hide the whole form as text, to edit it line by line": "显示或隐藏整个格律的文本，逐行编辑",
})

# Export formats for a piece with a melody (songwriter/export FORMATS)
ZH.update({
    "MusicXML: the melody with the words under its notes": "MusicXML：旋律，歌词写在音符下",
    "Karaoke MIDI: the melody with the words as lyric events": "卡拉 OK MIDI：旋律，歌词作为歌词事件",
    "Lead sheet (SVG): the melody engraved with the words under its notes": "旋律谱（SVG）：刻印的旋律，歌词写在音符下",
    "Lead sheet (PDF)": "旋律谱（PDF）",
})

# Melodies in the window: Import, the notes over the cells, playback, the tone fit
ZH.update({
    "Import &Melody…": "导入旋律(&M)…",
    "Make the form from a melody (MusicXML, MIDI, ABC): a slot per note, a line per phrase":
        "从旋律（MusicXML、MIDI、ABC）生成格律：每个音符一格，每个乐句一行",
    "Import melody": "导入旋律", "Cannot import the melody": "无法导入旋律",
    "Melody imported": "旋律已导入", "{made}\n\nReading {name}:\n{notes}": "{made}\n\n读取 {name} 时：\n{notes}",
    "Melodies (*.musicxml *.xml *.mxl *.mid *.midi *.kar *.abc);;MusicXML (*.musicxml *.xml *.mxl);;"
    "MIDI (*.mid *.midi *.kar);;ABC (*.abc);;All files (*)":
        "旋律 (*.musicxml *.xml *.mxl *.mid *.midi *.kar *.abc);;MusicXML (*.musicxml *.xml *.mxl);;"
        "MIDI (*.mid *.midi *.kar);;ABC (*.abc);;所有文件 (*)",
    "Reading {name}": "读取 {name}", "Part (the melody line):": "声部（旋律线）：", "Tune {n}": "第 {n} 首",
    "Tune (X: number):": "曲目（X: 编号）：", "Chinese": "中文", "English": "英文",
    "Write the new words in:": "新词的语言：",
    "Form made from the melody: {n} line(s), {size}; its notes are over the slots.":
        "已从旋律生成格律：{n} 行，{size}；音符在各格上方。",
    "{name}, {beats} beat(s)": "{name}，{beats} 拍", "Syllable {n}": "第 {n} 个音节", "bar {n}": "第 {n} 小节",
    "pickup": "弱起小节", "after a rest of {beats} beat(s)": "前有 {beats} 拍休止", "sung over {n} notes": "一字多音（{n} 个音符）",
    "&Play from This Line": "从本行播放(&P)", "Play the melody from the line at the cursor, the sung syllable lit":
        "从光标所在行播放旋律，正在唱的音节高亮", "Play from the &Start": "从头播放(&S)",
    "Play the melody from the first line": "从第一行播放旋律", "S&top": "停止(&T)", "Stop playing": "停止播放",
    "&Melody": "旋律(&M)", "Melody": "旋律", "Play": "播放", "From Start": "从头", "Stop": "停止", "Tempo": "速度",
    "Quarter notes a minute (the file's own tempo when a melody is opened)": "每分钟四分音符数（打开旋律时为文件自带的速度）",
    "This piece has no melody to play (File ▸ Import Melody…).": "这首作品没有可以播放的旋律（文件 ▸ 导入旋律…）。",
    "Playing from line {n} at ♩ = {t} ({synth})": "从第 {n} 行播放，♩ = {t}（{synth}）",
    "No audio output on this computer: the tune is shown, not heard (the syllables are lit in time).":
        "这台电脑没有音频输出：旋律只显示不发声（音节按节奏高亮）。",
    "General MIDI soundfont": "General MIDI 音色库", "built-in synthesiser": "内置合成器",
    "♪ {bad} 倒字, {poor} weak": "♪ {bad} 处倒字，{poor} 处欠佳", "♪ {poor} weak": "♪ {poor} 处欠佳", "syllable {n}": "第 {n} 个音节",
    "The audio output cannot play ({why}): the tune is shown, not heard.": "音频输出无法播放（{why}）：旋律只显示不发声。",
    "exit code {n}": "退出码 {n}",
    "&Break Line After This Syllable": "在此音节后断行(&B)",
    "End the line after this syllable; the rest of its notes start the next line": "此行在这个音节后结束；其后的音符归入下一行",
    "&Join with Next Syllable": "与下一音节合并(&J)",
    "Sing this syllable and the next as one, over both their notes (a melisma)": "把这个音节和下一个合为一个，唱在两者的音符上（一字多音）",
    "&Split into Notes": "拆成单音(&S)", "Sing a syllable held over several notes as one syllable per note": "一字多音改为每个音符一个音节",
    "Join syllables": "合并音节", "Split into notes": "拆成单音", "Move line break": "移动断行",
    "{what}: {words} now has no note of its own and was left out (Undo brings it back)":
        "{what}：{words}已没有自己的音符，已删去（可撤销）",
    "{what}: every word stays on its notes": "{what}：每个字仍在原来的音符上",
})

# The Steering panel (issue 11): content entries, the song's theme, the per-line plan
ZH.update({
    "The whole piece": "整首", "Per-line plan": "逐行立意",
    "Keywords, a line or a passage: each entry steers the whole piece.": "关键词、一句或一段：每条内容引导整首。",
    "明月 故乡, or a line…": "明月 故乡，或一句…", "Remove this entry": "删除这条内容",
    "How strongly this steers: 0 is how the model learned to follow content; right steers harder, left lighter":
        "引导强度：0 是模型学会的强度；往右更强，往左更弱",
    "Keep the song's theme": "保留原曲主题",
    "The original song's words steer the new ones, so they stay on its subject (on by default for a Chinese song; off for a classical form and for English)":
        "用原曲歌词引导新词，让新词不离原曲的题旨（中文歌曲默认打开，古典诗词和英文默认关闭）",
    "A topic becomes one keyword per line; each keyword steers its own line.": "给一个题目，每行得到一个关键词；每个关键词引导它那一行。",
    "the sea at night, or a line…": "the sea at night，或一句…", "Topic: the sea at night": "题目：the sea at night",
    "Topic: 明月 故乡": "题目：明月 故乡", "Propose": "立意",
    "Propose one keyword per line for the topic (from the poems the model learned from)": "按题目为每行提出一个关键词（取自模型学过的诗词）",
    "no keyword": "无关键词", "Propose another keyword for this line": "为这一行换一个关键词", "Line {n}: {text}": "第 {n} 行：{text}",
    "Clear Plan": "清除立意",
    "Whether this model can steer is known once it has loaded. What you enter is kept with the piece.":
        "模型加载后才知道它能否做内容引导。这里填写的内容会随作品保存。",
    "This model cannot steer yet. What you enter is kept with the piece, for a model that can.":
        "当前模型还不能做内容引导。这里填写的内容会随作品保存，留待能引导的模型使用。",
    "Generation follows what you enter; each slider sets how strongly.": "生成会跟随这里填写的内容；滑块调节强度。",
    "Not generated yet.": "尚未生成。",
    "Last generation: not steered (no content, no plan)": "上次生成：没有引导（无内容、无立意）",
    "Last generation steered by {what}": "上次生成的引导：{what}",
    "Last generation: not steered (this model cannot steer); kept: {what}": "上次生成：没有引导（当前模型不能引导）；已保存：{what}",
    "content: {list}": "内容：{list}", "the song's theme": "原曲主题",
    "the plan's keywords on {n} lines": "{n} 行的立意关键词",
    "Add content": "添加内容", "Edit content": "修改内容", "Remove content": "删除内容",
    "Drop the song's theme": "不用原曲主题", "Plan": "立意", "Plan topic": "立意题目", "Keyword of line {n}": "第 {n} 行关键词",
    "Clear plan": "清除立意", "Type the keywords, line or passage first": "请先输入关键词、句子或段落",
    "Give a topic first: a title or a few words ({example})": "请先给一个题目：标题或几个词（{example}）",
    "Planned {n} lines for {topic}: edit any keyword, or ↻ for another": "已为“{topic}”立意 {n} 行：可修改任一关键词，或按 ↻ 换一个",
    "The planner has no other keyword for line {n}": "第 {n} 行没有别的关键词可选了",
    "The planner knows none of the words of {topic}: give Chinese words, e.g. 明月 故乡": "立意统计里没有“{topic}”中的词：请给中文词，例如 明月 故乡",
    "The planner knows none of the words of {topic}: give English words, e.g. sea night": "立意统计里没有“{topic}”中的词：请给英文词，例如 sea night",
    "The planner's word statistics could not be read from {folder}: {e}": "无法从 {folder} 读取立意词表：{e}",
})
